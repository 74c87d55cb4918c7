/*
 * What the Account page's sections share: a refusal said in the page's own words. The sections call the service through the SDK's typed client (`api` in ../api), the data
 * export included (`api.download`).
 */
import { ApiError } from 'workshop-sdk';
import { InputProblem } from '../api';

/**
 * A refusal whose code has words of its own here (`invalid_credentials` → "That password is
 * wrong…") turned into those words, marking `field` when one is given; any other error as it was.
 */
export function inWords(err: unknown, words: Record<string, string | [string, string]>): unknown {
  if (!(err instanceof ApiError)) return err;
  const said = words[err.code];
  if (said === undefined) return err;
  return typeof said === 'string' ? new InputProblem(said) : new InputProblem(said[0], said[1]);
}
