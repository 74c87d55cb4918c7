import type {
  ExportReport,
  ReportCard,
  ReportComment,
  ReportItem,
  ReportRating,
  ReportVote,
} from '../../src/modules/exports/report';

export interface SampleOptions {
  clusters?: number;
  ideasPerCluster?: number;
  criteria?: number;
  /** Adds Chinese, Arabic and emoji titles and a very long idea. */
  worldText?: boolean;
  canvas?: boolean;
  seed?: number;
}

/** Deterministic pseudo-random numbers (mulberry32): the same options give the same report. */
function randomFrom(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PEOPLE = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson', 'Linus T.', 'Margaret Hamilton'];
const WORLD_TITLES = ['改进入职流程', 'تحسين تجربة العملاء', 'Ship it 🚀 faster', 'Übergröße & Ähnliches'];

/** A workshop report of the given size, shaped as the export worker builds one. */
export function sampleReport(options: SampleOptions = {}): ExportReport {
  const random = randomFrom(options.seed ?? 7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const clusterCount = options.clusters ?? 4;
  const ideasPerCluster = options.ideasPerCluster ?? 5;
  const criteria = Array.from({ length: options.criteria ?? 2 }, (_, i) => ({
    id: `crit${i + 1}`,
    title: ['Impact', 'Effort', 'Risk'][i] ?? `Criterion ${i + 1}`,
    values: [0, 1, 2, 3, 4],
    min: 0,
    max: 4,
  }));
  const sections = [
    { id: 'sec1', title: 'Next actions' },
    { id: 'sec2', title: 'Open questions' },
  ];
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20, 9, 0) + minutes * 60_000).toISOString();

  const cards: ReportCard[] = [];
  const votes: ReportVote[] = [];
  const ratings: ReportRating[] = [];
  const items: ReportItem[] = [];
  const comments: ReportComment[] = [];
  let number = 0;
  const card = (fields: Pick<ReportCard, 'type' | 'title' | 'clusterId' | 'clusterTitle' | 'position'>): ReportCard => {
    number += 1;
    const id = `card${number}`;
    const created = at(number);
    const voteCount = fields.type === 'idea' ? Math.floor(random() * 6) : 0;
    let score = 0;
    let positivePoints = 0;
    let negativePoints = 0;
    for (let v = 0; v < voteCount; v += 1) {
      const value = random() < 0.85 ? 1 : -1;
      score += value;
      if (value > 0) positivePoints += value;
      else negativePoints -= value;
      votes.push({ cardId: id, user: pick(PEOPLE), value, createdAt: at(number + 60 + v) });
    }
    const ratingAverages: Record<string, number> = {};
    let ratingCount = 0;
    if (fields.type === 'idea') {
      for (const criterion of criteria) {
        const values = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(criterion.values));
        values.forEach((value) =>
          ratings.push({
            cardId: id,
            criterionId: criterion.id,
            user: pick(PEOPLE),
            value,
            createdAt: at(number + 120),
          }),
        );
        ratingAverages[criterion.id] = values.reduce((a, b) => a + b, 0) / values.length;
        ratingCount += values.length;
      }
    }
    const commentCount = random() < 0.3 ? 1 : 0;
    if (commentCount)
      comments.push({
        cardId: id,
        user: pick(PEOPLE),
        content: `Comment on ${fields.title}`,
        createdAt: at(number + 200),
      });
    const itemCount = random() < 0.25 ? 1 : 0;
    if (itemCount)
      items.push({
        cardId: id,
        sectionId: pick(sections).id,
        user: pick(PEOPLE),
        content: `Follow up ${fields.title}`,
        createdAt: at(number + 210),
      });
    return {
      id,
      shortId: String(number),
      content: fields.type === 'idea' ? `Details for ${fields.title}` : '',
      color: fields.type === 'cluster' ? pick(['yellow', 'blue', 'green', 'pink']) : null,
      aside: false,
      x: random() * 40,
      y: random() * 30,
      author: pick(PEOPLE),
      createdAt: created,
      score,
      voteCount,
      positivePoints,
      negativePoints,
      ratingAverages,
      ratingCount,
      commentCount,
      itemCount,
      ...fields,
    };
  };

  for (let c = 0; c < clusterCount; c += 1) {
    const clusterTitle = options.worldText && c < WORLD_TITLES.length ? WORLD_TITLES[c]! : `Theme ${c + 1}`;
    const cluster = card({ type: 'cluster', title: clusterTitle, clusterId: null, clusterTitle: '', position: c });
    cards.push(cluster);
    for (let i = 0; i < ideasPerCluster; i += 1) {
      const long = options.worldText && c === 0 && i === 0;
      const title = long ? `A long idea ${'that keeps going and going '.repeat(20)}end` : `Idea ${c + 1}.${i + 1}`;
      cards.push(card({ type: 'idea', title, clusterId: cluster.id, clusterTitle: cluster.title, position: i }));
    }
  }

  return {
    generatedAt: '2026-11-23T18:00:00.000Z',
    workshop: {
      id: 'ws1',
      title: options.worldText ? 'Retro 2026 — 回顾 — مراجعة' : 'Quarterly retrospective',
      description: 'What went well, what did not, what we change next.',
      createdAt: at(0),
      state: 'running',
      language: 'en',
      facilitators: ['Ada Lovelace'],
      participantCount: PEOPLE.length - 1,
      currentStepId: 'step2',
    },
    steps: [
      { id: 'step1', number: 1, name: 'Brainstorm', instructions: 'Write one idea per card. Be specific.' },
      { id: 'step2', number: 2, name: 'Vote', instructions: 'Spend your points on the ideas that matter most.' },
      { id: 'step3', number: 3, name: 'Rate', instructions: 'Rate each idea for impact and effort.' },
    ],
    criteria,
    sections,
    cards,
    votes,
    ratings,
    items,
    comments,
    canvas:
      options.canvas === false
        ? null
        : {
            name: 'Board',
            cols: 48,
            rows: 32,
            zones: cards
              .filter((c) => c.type === 'cluster')
              .slice(0, 4)
              .map((c, i) => ({
                id: `zone${i + 1}`,
                name: c.title,
                x: (i % 2) * 24,
                y: Math.floor(i / 2) * 16,
                cols: 22,
                rows: 14,
                clusterId: c.id,
              })),
          },
  };
}
