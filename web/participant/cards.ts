import type { Attachment, Card, Comment, Item, Section } from 'workshop-sdk';
import { isMine, type CardList, type Criterion } from './session';
import type { Direction } from './votes';

/*
 * One card on the participant page, kept as one set of elements for as long as the card is shown
 * and updated in place at each change: a re-render never takes the focus, a half-typed comment or
 * an open panel away from the person. Every text people wrote is set with `textContent`.
 */

export interface CardActions {
  vote(card: Card, direction: Direction): void;
  rate(card: Card, criterion: Criterion, value: number): void;
  comment(card: Card, content: string): void;
  /** A card's panel opened: its list is read. */
  openList(card: Card, list: CardList): void;
  /** An item in one of the workshop's sections. */
  addItem(card: Card, section: Section, content: string): void;
  attach(card: Card, file: File): void;
  /** A new title for the card. */
  edit(card: Card, title: string): void;
  remove(card: Card): void;
  /** Says a text to assistive technology (a refused press's reason). */
  announce(text: string): void;
}

/** What the page knows for one card at a render, worked out by the page. */
export interface CardFrame {
  scoreShown: boolean;
  contentShown: boolean;
  focused: boolean;
  /** The person wrote the card: it says so (no other author is named on the phone). */
  byYou: boolean;
  /** The vote controls, when the current step lets the person vote on this card. */
  vote: {
    /** The person's points on the card, waiting ones included. */
    mine: number;
    /** Why + (or −) would be refused, or null; a string while the points are being counted too. */
    plus: string | null;
    minus: string | null;
    /** The line under the buttons when + is allowed: the points left for this card. */
    left: string;
  } | null;
  /** The criteria to rate on, with the person's rating on each (null: none yet), when the step allows rating. */
  rate: Array<{ criterion: Criterion; value: number | null; waiting: boolean }> | null;
  /** Whether the step lets the person comment. */
  comment: boolean;
  /** The card's items by section, when the workshop has sections. */
  items: {
    sections: Section[];
    /** Read when the panel was first opened; null before. */
    list: Item[] | null;
    waiting: Array<{ sectionId: string; content: string }>;
    /** Whether the step lets the person add items (`allow_items`). */
    mayAdd: boolean;
    me: string;
  } | null;
  /** The card's files: read when the panel was first opened (null before), those being sent, and whether the step lets the person attach (`allow_attachment`). */
  files: { list: Attachment[] | null; sending: string[]; mayAdd: boolean };
  /** Whether the step lets the person edit (`allow_edit`) or delete (`allow_delete`) this card. */
  mayEdit: boolean;
  mayRemove: boolean;
  /** A new title waiting to be sent, shown in place of the card's. */
  waitingTitle: string | null;
  /** The card's comments when read (null before its panel was first opened), then those waiting to be sent. */
  comments: { list: Comment[] | null; waiting: string[]; me: string };
}

let made = 0;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Sets a text only when it changed, so assistive technology is not told of a change that is none. */
function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** A button that stays focusable when refused, so its reason can be read (`aria-disabled`, not `disabled`). */
function setRefused(button: HTMLButtonElement, refused: boolean): void {
  button.setAttribute('aria-disabled', String(refused));
}

export class CardView {
  readonly root: HTMLElement;
  private card!: Card;
  private frame!: CardFrame;
  private readonly id = `c${++made}`;
  private readonly article = element('article', 'card');
  private readonly title: HTMLElement;
  private readonly content = element('p', 'content');
  private readonly by = element('p', 'by');
  private readonly score = element('p', 'score');
  private readonly voteGroup = element('div', 'vote');
  private readonly minus = element('button', 'vote-button minus', '−');
  private readonly mine = element('span', 'mine');
  private readonly plus = element('button', 'vote-button plus', '+');
  private readonly voteNote = element('p', 'vote-note');
  private readonly minusWhy = element('span', 'visually-hidden');
  private readonly rateToggle = element('button', 'toggle rate-toggle');
  private readonly commentsToggle = element('button', 'toggle comments-toggle');
  private readonly itemsToggle = element('button', 'toggle items-toggle');
  private readonly itemsPanel = element('div', 'panel items-panel');
  private readonly itemLists = element('div', 'item-lists');
  private readonly itemForm = element('form', 'item-form');
  private readonly itemSection = element('select');
  private readonly itemInput = element('textarea');
  private drawnItems = '';
  private sectionOptions = '';
  private readonly filesToggle = element('button', 'toggle files-toggle');
  private readonly filesPanel = element('div', 'panel files-panel');
  private readonly fileList = element('ul', 'file-list');
  private readonly fileForm = element('form', 'file-form');
  private readonly fileInput = element('input');
  private drawnFiles = '';
  private readonly editToggle = element('button', 'toggle edit-toggle', 'Edit');
  private readonly removeButton = element('button', 'toggle remove-button', 'Delete');
  private readonly editPanel = element('form', 'panel edit-panel');
  private readonly editInput = element('input');
  private readonly ratePanel = element('div', 'panel rate-panel');
  private readonly commentsPanel = element('div', 'panel comments-panel');
  private readonly commentList = element('ul', 'comment-list');
  private readonly commentForm = element('form', 'comment-form');
  private readonly commentInput = element('textarea');
  private scales = '';
  private drawnComments = '';

  constructor(
    private readonly actions: CardActions,
    container: 'li' | 'div',
    headingLevel: 'h2' | 'h3',
  ) {
    this.root = element(container, 'card-holder');
    this.title = element(headingLevel, 'title');
    this.title.dir = 'auto';
    this.content.dir = 'auto';

    this.voteGroup.setAttribute('role', 'group');
    this.voteNote.id = `${this.id}-vote-note`;
    this.minusWhy.id = `${this.id}-minus-why`;
    this.plus.setAttribute('aria-describedby', this.voteNote.id);
    this.minus.setAttribute('aria-describedby', this.minusWhy.id);
    for (const [button, direction] of [
      [this.minus, -1],
      [this.plus, 1],
    ] as const) {
      button.type = 'button';
      button.addEventListener('click', () => {
        // Refused: the reason is on the card already; say it again for whoever pressed.
        const refused = direction === 1 ? this.frame.vote?.plus : this.frame.vote?.minus;
        if (refused) return this.actions.announce(refused);
        this.actions.vote(this.card, direction);
      });
    }
    this.mine.setAttribute('aria-live', 'polite');
    this.voteGroup.append(this.minus, this.mine, this.plus, this.voteNote, this.minusWhy);

    const tools = element('div', 'tools');
    for (const [toggle, panel, name] of [
      [this.rateToggle, this.ratePanel, 'rate'],
      [this.commentsToggle, this.commentsPanel, 'comments'],
      [this.itemsToggle, this.itemsPanel, 'items'],
      [this.filesToggle, this.filesPanel, 'files'],
      [this.editToggle, this.editPanel, 'edit'],
    ] as const) {
      toggle.type = 'button';
      panel.id = `${this.id}-${name}`;
      panel.hidden = true;
      toggle.setAttribute('aria-controls', panel.id);
      toggle.setAttribute('aria-expanded', 'false');
      toggle.addEventListener('click', () => {
        panel.hidden = !panel.hidden;
        toggle.setAttribute('aria-expanded', String(!panel.hidden));
        const list =
          panel === this.commentsPanel
            ? 'comments'
            : panel === this.itemsPanel
              ? 'items'
              : panel === this.filesPanel
                ? 'attachments'
                : null;
        if (!panel.hidden && list) this.actions.openList(this.card, list);
        if (!panel.hidden && panel === this.editPanel) {
          this.editInput.value = this.frame.waitingTitle ?? this.card.title;
          this.editInput.focus();
        }
      });
      tools.append(toggle);
    }
    this.removeButton.type = 'button';
    this.removeButton.addEventListener('click', () => {
      if (confirm(`Delete “${this.card.title}”?`)) this.actions.remove(this.card);
    });
    tools.append(this.removeButton);

    this.itemInput.rows = 2;
    this.itemInput.maxLength = 10_000;
    labelledForm(
      this.itemForm,
      [
        ['Section', this.itemSection, `${this.id}-section`],
        ['Your item', this.itemInput, `${this.id}-item`],
      ],
      'Add item',
      () => {
        const content = this.itemInput.value.trim();
        const section = this.frame.items?.sections.find(({ id }) => id === this.itemSection.value);
        if (!section) return this.itemSection;
        if (!content) return this.itemInput;
        this.actions.addItem(this.card, section, content);
        this.itemInput.value = '';
      },
    );
    this.itemsPanel.append(this.itemLists, this.itemForm);

    this.fileInput.type = 'file';
    labelledForm(this.fileForm, [['File to attach', this.fileInput, `${this.id}-file`]], 'Attach file', () => {
      const file = this.fileInput.files?.[0];
      if (!file) return this.fileInput;
      this.actions.attach(this.card, file);
      this.fileInput.value = '';
    });
    this.filesPanel.append(this.fileList, this.fileForm);

    this.editInput.maxLength = 1_000;
    this.editInput.dir = 'auto';
    labelledForm(this.editPanel, [['New title', this.editInput, `${this.id}-title`]], 'Save', () => {
      const title = this.editInput.value.trim();
      if (!title) return this.editInput;
      if (title !== (this.frame.waitingTitle ?? this.card.title)) this.actions.edit(this.card, title);
      closePanel(this.editToggle, this.editPanel);
      return this.editToggle;
    });

    this.commentInput.rows = 2;
    this.commentInput.maxLength = 10_000;
    labelledForm(this.commentForm, [['Your comment', this.commentInput, `${this.id}-comment`]], 'Send comment', () => {
      const content = this.commentInput.value.trim();
      if (!content) return this.commentInput;
      this.actions.comment(this.card, content);
      this.commentInput.value = '';
    });
    this.commentsPanel.append(this.commentList, this.commentForm);

    this.article.append(
      this.title,
      this.content,
      this.by,
      this.score,
      this.voteGroup,
      tools,
      this.ratePanel,
      this.commentsPanel,
      this.itemsPanel,
      this.filesPanel,
      this.editPanel,
    );
    this.root.append(this.article);
  }

  update(card: Card, frame: CardFrame): void {
    this.card = card;
    this.frame = frame;
    const { article } = this;
    article.dataset.cardId = card.id;
    article.className = `card ${card.type}${card.color ? ` color-${card.color}` : ''}${card.aside ? ' aside' : ''}${frame.focused ? ' focused' : ''}`;
    setText(this.title, frame.waitingTitle ?? card.title);
    this.title.classList.toggle('waiting', frame.waitingTitle !== null);
    setText(this.content, card.content);
    this.content.hidden = !frame.contentShown || !card.content;
    this.by.hidden = !frame.byYou;
    setText(this.by, card.author_visibility === 'shown' ? 'By you' : 'By you · your name is not shown');
    this.score.hidden = !frame.scoreShown;
    setText(this.score, `Score ${card.summary.score}`);
    this.updateVote(card);
    this.updateRate();
    this.updateComments(card);
    this.updateItems(card);
    this.updateFiles(card);
    this.updateChanges(card);
  }

  private updateItems(card: Card): void {
    const { items } = this.frame;
    const summed = Object.values(card.summary.sections).reduce((sum, count) => sum + count, 0);
    const count = items ? Math.max(summed, items.list?.length ?? 0) + items.waiting.length : 0;
    this.itemsToggle.hidden = !items || (!items.mayAdd && count === 0);
    if (this.itemsToggle.hidden || !items) {
      closePanel(this.itemsToggle, this.itemsPanel);
      return;
    }
    setText(this.itemsToggle, count === 0 ? 'Add item' : `Items (${count})`);
    this.itemsToggle.setAttribute(
      'aria-label',
      count === 0 ? `Add an item to “${card.title}”` : `Items (${count}) on “${card.title}”`,
    );
    this.itemForm.hidden = !items.mayAdd;
    const options = JSON.stringify(items.sections.map(({ id, title }) => [id, title]));
    if (options !== this.sectionOptions) {
      this.sectionOptions = options;
      const chosen = this.itemSection.value;
      this.itemSection.replaceChildren(
        ...items.sections.map(({ id, title }) => Object.assign(element('option', '', title), { value: id })),
      );
      if (items.sections.some(({ id }) => id === chosen)) this.itemSection.value = chosen;
    }
    const drawn = JSON.stringify([
      options,
      items.list?.map(({ id, content, section_id }) => [id, content, section_id]) ?? null,
      items.waiting,
    ]);
    if (drawn === this.drawnItems) return;
    this.drawnItems = drawn;
    // One list per section, with the items waiting to be sent at its end; the lists hold no controls.
    const lists = items.sections.map((section) => {
      const group = element('div', 'item-section');
      const name = element('p', 'item-section-name', section.title);
      name.dir = 'auto';
      name.id = `${this.id}-section-${section.id}`;
      const list = element('ul', 'item-list');
      list.setAttribute('aria-labelledby', name.id);
      const entries = [
        ...(items.list ?? [])
          .filter((item) => item.section_id === section.id)
          .map((item) => writtenEntry('item', item.content, isMine(item, items.me) ? 'you' : null)),
        ...items.waiting
          .filter(({ sectionId }) => sectionId === section.id)
          .map(({ content }) => writtenEntry('item', content, 'you, waiting')),
      ];
      if (entries.length === 0)
        entries.push(element('li', 'list-empty', items.list === null && count > 0 ? 'Loading…' : 'None yet.'));
      list.append(...entries);
      group.append(name, list);
      return group;
    });
    this.itemLists.replaceChildren(...lists);
  }

  private updateFiles(card: Card): void {
    const { list, sending, mayAdd } = this.frame.files;
    const count = Math.max(card.summary.attachments, list?.length ?? 0) + sending.length;
    this.filesToggle.hidden = !mayAdd && count === 0;
    if (this.filesToggle.hidden) {
      closePanel(this.filesToggle, this.filesPanel);
      return;
    }
    setText(this.filesToggle, count === 0 ? 'Attach' : `Files (${count})`);
    this.filesToggle.setAttribute(
      'aria-label',
      count === 0 ? `Attach a file to “${card.title}”` : `Files (${count}) on “${card.title}”`,
    );
    this.fileForm.hidden = !mayAdd;
    const drawn = JSON.stringify([list?.map(({ id, name, url }) => [id, name, url]) ?? null, sending, count > 0]);
    if (drawn === this.drawnFiles) return;
    this.drawnFiles = drawn;
    const entries = (list ?? []).map((attachment) => {
      const entry = element('li', 'file');
      const link = element('a', 'file-link', attachment.name);
      link.href = attachment.url;
      link.rel = 'noopener';
      link.target = '_blank';
      entry.append(link, element('span', 'file-size', ` ${sizeText(attachment.size)}`));
      return entry;
    });
    for (const name of sending) entries.push(element('li', 'file waiting', `${name} · sending…`));
    if (entries.length === 0)
      entries.push(element('li', 'list-empty', list === null && count > 0 ? 'Loading…' : 'No files yet.'));
    // The list holds links only: redrawing it while one has the focus is rare and costs only that.
    this.fileList.replaceChildren(...entries);
  }

  private updateChanges(card: Card): void {
    const { mayEdit, mayRemove } = this.frame;
    this.editToggle.hidden = !mayEdit;
    if (!mayEdit) {
      closePanel(this.editToggle, this.editPanel);
    }
    this.editToggle.setAttribute('aria-label', `Edit “${card.title}”`);
    this.removeButton.hidden = !mayRemove;
    this.removeButton.setAttribute('aria-label', `Delete “${card.title}”`);
  }

  private updateVote(card: Card): void {
    const { vote } = this.frame;
    this.voteGroup.hidden = vote === null;
    if (!vote) return;
    this.voteGroup.setAttribute('aria-label', `Your points on “${card.title}”`);
    this.plus.setAttribute('aria-label', `Give a point to “${card.title}”`);
    this.minus.setAttribute('aria-label', `Take a point from “${card.title}”`);
    setRefused(this.plus, vote.plus !== null);
    setRefused(this.minus, vote.minus !== null);
    setText(this.mine, String(vote.mine));
    this.mine.setAttribute('aria-label', `${vote.mine} of your points`);
    setText(this.voteNote, vote.plus ?? vote.left);
    setText(this.minusWhy, vote.minus ?? '');
    this.voteNote.classList.toggle('why', vote.plus !== null);
  }

  private updateRate(): void {
    const { rate } = this.frame;
    this.rateToggle.hidden = rate === null;
    if (!rate) {
      closePanel(this.rateToggle, this.ratePanel);
      return;
    }
    const rated = rate.filter((entry) => entry.value !== null).length;
    setText(this.rateToggle, rated === 0 ? 'Rate' : `Rated ${rated} of ${rate.length}`);
    // The scales are rebuilt only when the criteria change; the pressed values are set each time.
    const scales = JSON.stringify(
      rate.map(({ criterion }) => [criterion.id, criterion.title, criterion.current_scale]),
    );
    if (scales !== this.scales) {
      this.scales = scales;
      this.ratePanel.replaceChildren(
        ...rate.map(({ criterion }) => {
          const group = element('div', 'criterion');
          const name = element('p', 'criterion-name', criterion.title);
          name.id = `${this.id}-criterion-${criterion.id}`;
          name.dir = 'auto';
          group.setAttribute('role', 'group');
          group.setAttribute('aria-labelledby', name.id);
          group.dataset.criterionId = criterion.id;
          const values = element('div', 'scale');
          for (const value of criterion.current_scale) {
            const button = element('button', 'scale-value', String(value));
            button.type = 'button';
            button.dataset.value = String(value);
            button.setAttribute('aria-label', `${value} for ${criterion.title}`);
            button.addEventListener('click', () => this.actions.rate(this.card, criterion, value));
            values.append(button);
          }
          group.append(name, values);
          return group;
        }),
      );
    }
    for (const { criterion, value, waiting } of rate) {
      const group = this.ratePanel.querySelector<HTMLElement>(`[data-criterion-id="${CSS.escape(criterion.id)}"]`);
      group?.classList.toggle('waiting', waiting);
      group?.querySelectorAll<HTMLButtonElement>('.scale-value').forEach((button) => {
        button.setAttribute('aria-pressed', String(value !== null && button.dataset.value === String(value)));
      });
    }
  }

  private updateComments(card: Card): void {
    const { comment, comments } = this.frame;
    const count = Math.max(card.summary.comments, comments.list?.length ?? 0) + comments.waiting.length;
    // Nothing to read and nothing to write: no toggle.
    this.commentsToggle.hidden = !comment && count === 0;
    if (this.commentsToggle.hidden) closePanel(this.commentsToggle, this.commentsPanel);
    setText(this.commentsToggle, count === 0 ? 'Comment' : `Comments (${count})`);
    this.commentForm.hidden = !comment;
    const drawn = JSON.stringify([
      comments.list?.map(({ id, content }) => [id, content]) ?? null,
      comments.waiting,
      count > 0,
    ]);
    if (drawn === this.drawnComments) return;
    this.drawnComments = drawn;
    const items = [
      ...(comments.list ?? []).map((found) =>
        writtenEntry('comment', found.content, isMine(found, comments.me) ? 'you' : null),
      ),
      ...comments.waiting.map((content) => writtenEntry('comment', content, 'you, waiting')),
    ];
    if (comments.list === null && comments.waiting.length === 0)
      items.push(element('li', 'list-empty', count > 0 ? 'Loading…' : 'No comments yet.'));
    else if (items.length === 0) items.push(element('li', 'list-empty', 'No comments yet.'));
    // The list holds no controls: redrawing it takes no focus away.
    this.commentList.replaceChildren(...items);
  }
}

/**
 * Fills a form of a card: each control with its label, then a submit button. On submit `submit`
 * runs; the control it returns (one left empty, or where to go next) gets the focus.
 */
function labelledForm(
  form: HTMLFormElement,
  fields: Array<[string, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, string]>,
  button: string,
  submit: () => HTMLElement | void,
): void {
  for (const [text, control, id] of fields) {
    const label = element('label', '', text);
    label.htmlFor = control.id = id;
    form.append(label, control);
  }
  const send = element('button', 'secondary', button);
  send.type = 'submit';
  form.append(send);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit()?.focus();
  });
}

/** A comment or an item in its card's list, saying so when the person wrote it; one still waiting to be sent drawn dashed. */
function writtenEntry(kind: 'comment' | 'item', content: string, by: 'you' | 'you, waiting' | null): HTMLLIElement {
  const entry = element('li', by === 'you, waiting' ? `${kind} waiting` : kind);
  const text = element('p', `${kind}-text`, content);
  text.dir = 'auto';
  entry.append(text);
  if (by) entry.append(element('span', 'written-by', by === 'you' ? 'You' : 'You · waiting to be sent'));
  return entry;
}

/** Closes a card's panel and says so on its toggle. */
function closePanel(toggle: HTMLButtonElement, panel: HTMLElement): void {
  panel.hidden = true;
  toggle.setAttribute('aria-expanded', 'false');
}

/** A file's size in words a person reads. */
function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Puts `nodes` into `parent` in this order, moving only those out of place (a moved element
 * loses the focus it holds) and removing the others.
 */
export function placeChildren(parent: Element, nodes: Node[]): void {
  let at = parent.firstChild;
  for (const node of nodes) {
    if (node === at) at = at.nextSibling;
    else parent.insertBefore(node, at);
  }
  while (at) {
    const next = at.nextSibling;
    parent.removeChild(at);
    at = next;
  }
}
