import type { Card } from 'workshop-sdk';
import { t } from '../shared/i18n';
import { closePanel, element, labelledForm, setText } from './card-dom';
import type { CardActions, CardFrame } from './card-frame';
import * as lists from './card-panel-lists';
import * as say from './card-words';
import { CardVoteControls } from './card-vote-controls';

/*
 * One card on the participant page, kept as one set of elements for as long as the card is shown
 * and updated in place at each change: a re-render never takes the focus, a half-typed comment or
 * an open panel away from the person. Every text people wrote is set with `textContent`.
 */

let made = 0;

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
  private readonly vote = new CardVoteControls(this.id, (direction) => {
    // Refused: the reason is on the card already; say it again for whoever pressed.
    const refused = direction === 1 ? this.frame.vote?.plus : this.frame.vote?.minus;
    if (refused) return this.actions.announce(refused);
    this.actions.vote(this.card, direction);
  });
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
  private readonly editToggle = element('button', 'toggle edit-toggle', t('participant.card.edit'));
  private readonly removeButton = element('button', 'toggle remove-button', t('participant.card.delete'));
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
        const list = name === 'files' ? 'attachments' : name === 'comments' || name === 'items' ? name : null;
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
      if (confirm(t('participant.card.delete_confirm', { title: this.card.title }))) this.actions.remove(this.card);
    });
    tools.append(this.removeButton);

    this.itemInput.rows = 2;
    this.itemInput.maxLength = 10_000;
    labelledForm(
      this.itemForm,
      [
        [t('participant.card.section'), this.itemSection, `${this.id}-section`],
        [t('participant.card.your_item'), this.itemInput, `${this.id}-item`],
      ],
      t('participant.card.add_item'),
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
    labelledForm(
      this.fileForm,
      [[t('participant.card.file_to_attach'), this.fileInput, `${this.id}-file`]],
      t('participant.card.attach_file'),
      () => {
        const file = this.fileInput.files?.[0];
        if (!file) return this.fileInput;
        this.actions.attach(this.card, file);
        this.fileInput.value = '';
      },
    );
    this.filesPanel.append(this.fileList, this.fileForm);

    this.editInput.maxLength = 1_000;
    this.editInput.dir = 'auto';
    labelledForm(
      this.editPanel,
      [[t('participant.card.new_title'), this.editInput, `${this.id}-title`]],
      t('participant.card.save'),
      () => {
        const title = this.editInput.value.trim();
        if (!title) return this.editInput;
        if (title !== (this.frame.waitingTitle ?? this.card.title)) this.actions.edit(this.card, title);
        closePanel(this.editToggle, this.editPanel);
        return this.editToggle;
      },
    );

    this.commentInput.rows = 2;
    this.commentInput.maxLength = 10_000;
    labelledForm(
      this.commentForm,
      [[t('participant.card.your_comment'), this.commentInput, `${this.id}-comment`]],
      t('participant.card.send_comment'),
      () => {
        const content = this.commentInput.value.trim();
        if (!content) return this.commentInput;
        this.actions.comment(this.card, content);
        this.commentInput.value = '';
      },
    );
    this.commentsPanel.append(this.commentList, this.commentForm);

    this.article.append(
      this.title,
      this.content,
      this.by,
      this.score,
      this.vote.group,
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
    say.sayBy(this.by, card.author_visibility === 'shown');
    this.score.hidden = !frame.scoreShown;
    setText(this.score, t('participant.card.score', { score: card.summary.score }));
    this.vote.update(card, frame.vote);
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
    say.sayItemsToggle(this.itemsToggle, count, card.title);
    this.itemForm.hidden = !items.mayAdd;
    const options = JSON.stringify(items.sections.map(({ id, title }) => [id, title]));
    if (options !== this.sectionOptions) {
      this.sectionOptions = options;
      lists.fillSections(this.itemSection, items.sections);
    }
    const drawn = JSON.stringify([
      options,
      items.list?.map(({ id, content, section_id }) => [id, content, section_id]) ?? null,
      items.waiting,
    ]);
    if (drawn === this.drawnItems) return;
    this.drawnItems = drawn;
    // One list per section, with the items waiting to be sent at its end; the lists hold no controls.
    this.itemLists.replaceChildren(...lists.itemSectionLists(items, count, this.id));
  }

  private updateFiles(card: Card): void {
    const { list, sending, mayAdd } = this.frame.files;
    const count = Math.max(card.summary.attachments, list?.length ?? 0) + sending.length;
    this.filesToggle.hidden = !mayAdd && count === 0;
    if (this.filesToggle.hidden) {
      closePanel(this.filesToggle, this.filesPanel);
      return;
    }
    say.sayFilesToggle(this.filesToggle, count, card.title);
    this.fileForm.hidden = !mayAdd;
    const drawn = JSON.stringify([list?.map(({ id, name, url }) => [id, name, url]) ?? null, sending, count > 0]);
    if (drawn === this.drawnFiles) return;
    this.drawnFiles = drawn;
    // The list holds links only: redrawing it while one has the focus is rare and costs only that.
    this.fileList.replaceChildren(...lists.fileEntries(list, sending, count));
  }

  private updateChanges(card: Card): void {
    const { mayEdit, mayRemove } = this.frame;
    this.editToggle.hidden = !mayEdit;
    if (!mayEdit) closePanel(this.editToggle, this.editPanel);
    this.removeButton.hidden = !mayRemove;
    say.sayChanges(this.editToggle, this.removeButton, card.title);
  }

  private updateRate(): void {
    const { rate } = this.frame;
    this.rateToggle.hidden = rate === null;
    if (!rate) {
      closePanel(this.rateToggle, this.ratePanel);
      return;
    }
    const rated = rate.filter((entry) => entry.value !== null).length;
    say.sayRateToggle(this.rateToggle, rated, rate.length);
    // The scales are rebuilt only when the criteria change; the pressed values are set each time.
    const scales = JSON.stringify(
      rate.map(({ criterion }) => [criterion.id, criterion.title, criterion.current_scale]),
    );
    if (scales !== this.scales) {
      this.scales = scales;
      this.ratePanel.replaceChildren(
        ...lists.ratingScales(rate, this.id, (criterion, value) => this.actions.rate(this.card, criterion, value)),
      );
    }
    lists.markRatings(this.ratePanel, rate);
  }

  private updateComments(card: Card): void {
    const { comment, comments } = this.frame;
    const count = Math.max(card.summary.comments, comments.list?.length ?? 0) + comments.waiting.length;
    // Nothing to read and nothing to write: no toggle.
    this.commentsToggle.hidden = !comment && count === 0;
    if (this.commentsToggle.hidden) closePanel(this.commentsToggle, this.commentsPanel);
    say.sayCommentsToggle(this.commentsToggle, count);
    this.commentForm.hidden = !comment;
    const drawn = JSON.stringify([
      comments.list?.map(({ id, content }) => [id, content]) ?? null,
      comments.waiting,
      count > 0,
    ]);
    if (drawn === this.drawnComments) return;
    this.drawnComments = drawn;
    // The list holds no controls: redrawing it takes no focus away.
    this.commentList.replaceChildren(...lists.commentEntries(comments, count));
  }
}
