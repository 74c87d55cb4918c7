/*
 * The DOM helpers of the participant page's cards: elements made and updated without taking the
 * focus or telling assistive technology of a change that is none.
 */

export function element<K extends keyof HTMLElementTagNameMap>(
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
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** A button that stays focusable when refused, so its reason can be read (`aria-disabled`, not `disabled`). */
export function setRefused(button: HTMLButtonElement, refused: boolean): void {
  button.setAttribute('aria-disabled', String(refused));
}

/**
 * Fills a form of a card: each control with its label, then a submit button. On submit `submit`
 * runs; the control it returns (one left empty, or where to go next) gets the focus.
 */
export function labelledForm(
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

/** Closes a card's panel and says so on its toggle. */
export function closePanel(toggle: HTMLButtonElement, panel: HTMLElement): void {
  panel.hidden = true;
  toggle.setAttribute('aria-expanded', 'false');
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
