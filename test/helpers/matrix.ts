/**
 * Whether this is the whole matrix (`npm run test:all`, which CI runs) rather than a contributor's
 * `npm test`. A test that repeats a random or timing-dependent scenario to catch a rare interleaving
 * repeats it fewer times in `npm test`, which answers in minutes; CI repeats it in full.
 */
export const wholeMatrix = process.env.TEST_MATRIX === 'all';

/** `full` repetitions in the whole matrix, `quick` in a contributor's run. */
export const repetitions = (full: number, quick: number): number => (wholeMatrix ? full : quick);
