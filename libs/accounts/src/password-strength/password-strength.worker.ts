/**
 * Entry of the password-strength worker thread: zxcvbn's dictionaries (≈ 25 MB of strings, sets and
 * ranked word tables) live in this thread's heap, never in the main one, where every full garbage
 * collection would have to mark them again while requests wait. One request at a time:
 * `{ id, password, inputs }` → `{ id, common, score, warning, suggestions }` or `{ id, error }`.
 */
import { parentPort } from 'node:worker_threads';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as commonDictionary } from '@zxcvbn-ts/language-common';
import { dictionary as enDictionary, translations } from '@zxcvbn-ts/language-en';
import type { StrengthReply, StrengthRequest } from './password-strength';

/** How many leading characters zxcvbn scores (longer passwords are judged by that prefix). */
const SCORED_CHARACTERS = 64;

const common = new Set(commonDictionary['passwords-common'].map((p) => String(p).toLowerCase()));
const estimator = new ZxcvbnFactory({
  translations,
  graphs: adjacencyGraphs,
  dictionary: { ...commonDictionary, ...enDictionary },
  // bounds the work of one check: the first 64 characters are scored, with at most 8 leetspeak
  // substitutions tried
  maxLength: SCORED_CHARACTERS,
  l33tMaxSubstitutions: 8,
});

parentPort?.on('message', ({ id, password, inputs }: StrengthRequest) => {
  let reply: StrengthReply;
  try {
    if (common.has(password.toLowerCase())) reply = { id, common: true, score: 0, warning: null, suggestions: [] };
    else {
      const result = estimator.check(password, inputs);
      reply = {
        id,
        common: false,
        score: result.score,
        warning: result.feedback.warning ?? null,
        suggestions: result.feedback.suggestions,
      };
    }
  } catch (err) {
    reply = { id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
