/**
 * A plan as a reviewer reads it, for the text and Markdown renderers: each
 * shown change with its short name, the change in words and its review
 * (effects, risks, findings: src/review), risky changes first; and the
 * plan's findings no shown change carries (the configuration as a whole, or
 * an unchanged resource). Worked out when the plan is shown.
 */
import {
  changeDoes,
  changeLabel,
  changeWords,
  findingMessage,
  reviewChanges,
  type ChangeReview,
  type Finding,
  type Risk,
} from '../review/index.js';
import { labelParts, namedLabel, type LabelParts } from './names.js';
import { tenantText } from './tenant-text.js';
import type { Change, Plan } from './types.js';

export interface ShownChange {
  change: Change;
  /** The resource's short name: a selector, a user and permission, a token type; with the names the plan knows (`Mobile app (client_id:Vb4n…)`). */
  label: string;
  /** The short name's parts, for a renderer that shows the name and the id apart. */
  parts: LabelParts;
  /** The change in words: "block → log", "new, log 50/s". */
  words: string;
  /** What it does, for a kind without effects: "grants read:reports on Reports API to auth0|bob". */
  plain: string[];
  review: ChangeReview;
}

/** A shown change and its review, before its name and words are worked out (see ReviewView.show). */
export interface ReviewedChange {
  change: Change;
  review: ChangeReview;
}

export interface ReviewView {
  /**
   * Changes a reviewer must look at first: those that block every request,
   * then those that start enforcing, cut a limit, or that a guardrail warns
   * about; in plan order within each.
   */
  risky: ReviewedChange[];
  /** The rest, in plan order. */
  others: ReviewedChange[];
  /** Findings about no shown change. */
  loose: Finding[];
  /**
   * A change as shown: its short name and words, worked out when the
   * renderer writes it, so that a plan of 100,000 changes never holds all
   * their names and sentences at once.
   */
  show(item: ReviewedChange): ShownChange;
}

const RISK_ORDER: readonly Risk[] = ['blocks-every-request', 'starts-enforcing', 'limit-cut', 'finding'];

/** The place of a change's gravest risk in RISK_ORDER. */
function rank(review: ChangeReview): number {
  return Math.min(...review.risks.map((r) => RISK_ORDER.indexOf(r)));
}

/**
 * The review of each of the plan's changes, looked up by the change. Shown
 * changes come in plan order, so the next one is found by walking on from
 * the last; only one out of order needs the index made on first need.
 */
function reviewLookup(plan: Plan): (change: Change) => ChangeReview | undefined {
  const reviews = reviewChanges(plan);
  let at = 0;
  let index: Map<Change, ChangeReview> | null = null;
  return (change) => {
    for (let i = at; i < plan.changes.length; i++) {
      if (plan.changes[i] !== change) continue;
      at = i + 1;
      return reviews[i];
    }
    index ??= new Map(plan.changes.map((c, i) => [c, reviews[i]!]));
    return index.get(change);
  };
}

/** `shown` (a subset of plan.changes, in order) split into risky and other changes, and the loose findings. */
export function reviewView(plan: Plan, shown: readonly Change[]): ReviewView {
  const reviewOf = reviewLookup(plan);
  const names = plan.names;
  const nameOf = (list: string, key: string): string | undefined => {
    const name = names?.items[list]?.[key];
    return name === undefined ? undefined : tenantText(name);
  };
  const risky: ReviewedChange[] = [];
  const others: ReviewedChange[] = [];
  for (const change of shown) {
    const review = reviewOf(change) ?? { effects: [], risks: [], findings: [] };
    (review.risks.length > 0 ? risky : others).push({ change, review });
  }
  risky.sort((a, b) => rank(a.review) - rank(b.review));
  const carried = new Set<Finding>();
  for (const list of [risky, others]) for (const s of list) for (const f of s.review.findings) carried.add(f);
  const loose = (plan.findings ?? []).filter((f) => !carried.has(f));
  const show = ({ change, review }: ReviewedChange): ShownChange => {
    const parts = labelParts(change, changeLabel(change), names);
    const plain = changeDoes(change, nameOf);
    return { change, label: namedLabel(parts), parts, words: changeWords(change), plain, review };
  };
  return { risky, others, loose, show };
}

/** "file:line:col", "file" for a whole file, or "" when a finding has no position. */
export function findingWhere(finding: Finding): string {
  const s = finding.source;
  if (!s || !s.file) return '';
  return s.line > 0 ? `${s.file}:${s.line}:${s.col}` : s.file;
}

/** "file:line:col: message [rule]" (or without a position). */
export function findingLine(finding: Finding): string {
  const at = findingWhere(finding);
  return `${at ? `${at}: ` : ''}${findingMessage(finding)} [${finding.rule}]`;
}
