/**
 * What every command's view (src/run/view.ts) says alike: config problems,
 * guardrail errors and the check of the config's references, on stderr.
 * Each command's view handles its own events first and hands the rest here.
 */
import type { RunEvent } from '../run/index.js';
import { reportIssues } from './config-issues.js';
import { reportGuardrailErrors } from './guardrails.js';
import type { CommandIO } from './io.js';
import { messageOf } from './run-words.js';
import { reportReferences } from './tenant-read.js';
import type { WhereTarget } from '../run/view.js';

/** Renders the events every command says alike; false for one it leaves to the command. */
export function renderCommonEvent(event: RunEvent, io: CommandIO): boolean {
  switch (event.kind) {
    case 'config-issues':
      reportIssues(event.issues, io);
      return true;
    case 'guardrail-errors':
      reportGuardrailErrors(event.findings, io);
      return true;
    case 'references':
      reportReferences(event, io);
      return true;
    default:
      return false;
  }
}

/** The Target: line's value: the base URL, `unset` when none is named, or why it is invalid. */
export function targetLine(target: WhereTarget, unset: string): string {
  if (target.kind === 'set') return target.baseUrl;
  if (target.kind === 'unset') return unset;
  return `invalid: ${messageOf(target.error)}`;
}

/** An event the command's view was not written for: a run and its view disagree (a bug). */
export function unexpectedEvent(event: RunEvent): never {
  throw new Error(`the view has no rendering for the run event "${event.kind}"`);
}
