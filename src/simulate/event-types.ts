/**
 * Which tenant log events are requests to the Authentication API, from the
 * service's log event type reference ("Log Event Type Codes", and the event
 * schemas of its tenant-logs docs). One table: a code listed here is counted
 * as one request of the event's `client_id`, at the event's `date`; any other
 * code is read and left out (Management API operations, user profile
 * changes, system notices). A log records the outcome of a request, not the
 * request: a redirect to the login page or a request the tenant's own limit
 * refused writes no event, so the counts are a lower bound.
 */

/** The Authentication API endpoint a counted event is the outcome of. */
export type AuthEndpoint =
  | '/oauth/token'
  | '/authorize'
  | '/co/authenticate'
  | '/passwordless/start'
  | '/dbconnections/signup'
  | '/oauth/device/code'
  | '/bc-authorize'
  | '/v2/logout';

/** A counted event type: the request it records and its outcome. */
export interface RequestEvent {
  endpoint: AuthEndpoint;
  what: string;
}

const token = (what: string): RequestEvent => ({ endpoint: '/oauth/token', what });

/**
 * Event code → the Authentication API request it records. Success and
 * failure both count: a failed exchange was a request all the same.
 */
export const REQUEST_EVENTS: Readonly<Record<string, RequestEvent>> = {
  // Token endpoint: one event per exchange, by grant.
  seacft: token('exchange of an authorization code'),
  feacft: token('failed exchange of an authorization code'),
  seccft: token('client credentials exchange'),
  feccft: token('failed client credentials exchange'),
  sepft: token('exchange of a password'),
  fepft: token('failed exchange of a password'),
  sertft: token('exchange of a refresh token'),
  fertft: token('failed exchange of a refresh token'),
  ferrt: token('failed exchange of a rotating refresh token'),
  sede: token('exchange of a device code'),
  fede: token('failed exchange of a device code'),
  seoobft: token('exchange of a password and OOB challenge'),
  feoobft: token('failed exchange of a password and OOB challenge'),
  seotpft: token('exchange of a password and OTP challenge'),
  feotpft: token('failed exchange of a password and OTP challenge'),
  sercft: token('exchange of a password and MFA recovery code'),
  fercft: token('failed exchange of a password and MFA recovery code'),
  sepotpft: token('exchange of a passwordless OTP'),
  fepotpft: token('failed exchange of a passwordless OTP'),
  sens: token('native social login exchange'),
  fens: token('failed native social login exchange'),
  secte: token('custom token exchange'),
  fecte: token('failed custom token exchange'),
  ciba_exchange_succeeded: token('CIBA exchange'),
  ciba_exchange_failed: token('failed CIBA exchange'),
  // Logins through /authorize (universal login, silent authentication).
  s: { endpoint: '/authorize', what: 'login' },
  f: { endpoint: '/authorize', what: 'failed login' },
  fp: { endpoint: '/authorize', what: 'login with an incorrect password' },
  fu: { endpoint: '/authorize', what: 'login with an invalid email or username' },
  ssa: { endpoint: '/authorize', what: 'silent authentication' },
  fsa: { endpoint: '/authorize', what: 'failed silent authentication' },
  // Embedded (cross-origin) login.
  scoa: { endpoint: '/co/authenticate', what: 'cross-origin authentication' },
  fcoa: { endpoint: '/co/authenticate', what: 'failed cross-origin authentication' },
  // Passwordless, signup, device flow, CIBA, logout.
  cls: { endpoint: '/passwordless/start', what: 'passwordless code or link sent' },
  cs: { endpoint: '/passwordless/start', what: 'passwordless code sent' },
  ss: { endpoint: '/dbconnections/signup', what: 'signup' },
  fs: { endpoint: '/dbconnections/signup', what: 'failed signup' },
  fdeaz: { endpoint: '/oauth/device/code', what: 'failed device authorization request' },
  ciba_start_succeeded: { endpoint: '/bc-authorize', what: 'CIBA start' },
  ciba_start_failed: { endpoint: '/bc-authorize', what: 'failed CIBA start' },
  slo: { endpoint: '/v2/logout', what: 'logout' },
  flo: { endpoint: '/v2/logout', what: 'failed logout' },
};

/**
 * The service's notice that a rate limit was reached ("Rate Limit on the
 * Authentication or Management APIs"). The docs write one when a limit is
 * exceeded, once per bucket, not one per request over it: it is read as the
 * service's own record that an application hit a limit, never as a count of
 * requests limited.
 */
export const LIMIT_NOTICE = 'api_limit';

/** True when `type` records a request to the Authentication API. */
export function isRequestEvent(type: string): boolean {
  return Object.hasOwn(REQUEST_EVENTS, type);
}
