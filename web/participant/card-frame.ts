import type { Attachment, Card, Comment, Item, Section } from 'workshop-sdk';
import type { CardList } from './card-lists';
import type { Criterion } from './step-prefs';
import type { Direction } from '../shared/votes';

/*
 * What passes between the participant page and one drawn card: the presses the card reports
 * (`CardActions`) and what the page worked out for it at a render (`CardFrame`).
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
