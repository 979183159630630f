import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDeployCliDirectory, readDeployCliYaml } from './from-deploy-cli.js';
import { resolveReferences, unresolvedNames, type ReferenceSources } from './peer-references.js';
import type { PeerRead } from './peer-source.js';
import { flagIssue } from '../cli/config-issues.js';

const YAML_FIXTURE = 'test/fixtures/peers/deploy-cli/tenant.yaml';
const DIR_FIXTURE = 'test/fixtures/peers/deploy-cli/directory';
const yamlText = readFileSync(YAML_FIXTURE, 'utf8');

/** The directory fixture as the CLI hands it in: top entries, and the JSON files of the asset folders. */
function directory(edit: (files: { path: string; text: string }[]) => void = () => {}): PeerRead {
  const entries = readdirSync(DIR_FIXTURE)
    .filter((n) => !n.startsWith('.'))
    .sort();
  const files = ['rate-limit-policies', 'token-exchange-profiles'].flatMap((folder) =>
    readdirSync(join(DIR_FIXTURE, folder))
      .sort()
      .map((name) => ({
        path: `${folder}/${name}`,
        text: readFileSync(join(DIR_FIXTURE, folder, name), 'utf8'),
      })),
  );
  edit(files);
  return readDeployCliDirectory(DIR_FIXTURE, entries, files);
}

const none: ReferenceSources['given'] = { actions: new Map() };

describe('readDeployCliYaml and readDeployCliDirectory', () => {
  it.each([
    ['YAML', () => readDeployCliYaml(yamlText, YAML_FIXTURE)],
    ['directory', () => directory()],
  ])(
    'reads rateLimitPolicies and tokenExchangeProfiles from the %s form, skipping the rest',
    (_form, read) => {
      const found = read();
      expect(found.issues).toEqual([]);
      expect(found.resources.map((r) => r.address).sort()).toEqual([
        'rate_limit_policy["oauth_authentication_api","client","client_id:Wq2eR7tY9uI1oP3aS5dF7gH9jK1lZ3xC"]',
        'rate_limit_policy["oauth_authentication_api","client","default"]',
        'rate_limit_policy["oauth_authentication_api","client","third_party_clients"]',
        'token_exchange_profile["urn:partner:sso-token"]',
      ]);
      expect(found.resources.every((r) => r.id === null)).toBe(true);
      const profile = found.resources.find((r) => r.kind === 'token_exchange_profile')!;
      expect(profile.attributes.action_id).toBeUndefined();
      expect(profile.references).toMatchObject([
        { attribute: 'action_id', list: 'actions', name: 'partner-token-check' },
      ]);
      expect(profile.references[0]!.at.line).toBeGreaterThan(0);
      expect(found.skipped.map((s) => s.what).sort()).toEqual(
        _form === 'YAML' ? ['actions', 'clients', 'tenant'] : ['actions', 'clients', 'tenant.json'],
      );
      expect(JSON.stringify(found)).not.toContain('SECRET');
    },
  );

  it('refuses the Deploy CLI keyword replacement, naming where', () => {
    const text = yamlText.replace('limit: 100', 'limit: "##DEFAULT_LIMIT##"');
    const read = readDeployCliYaml(text, 'tenant.yaml');
    expect(read.resources).toEqual([]);
    expect(read.issues).toHaveLength(1);
    expect(read.issues[0]!.message).toContain(
      "uses the Deploy CLI's keyword replacement (##DEFAULT_LIMIT##)",
    );
    expect(yamlText.split('\n')[read.issues[0]!.line - 1]).toContain('limit: 100');
  });

  it.each([
    [
      'a policy without consumer',
      yamlText.replace(
        '    consumer: client\n    consumer_selector: default',
        '    consumer_selector: default',
      ),
      /rateLimitPolicies\[0\]: missing "consumer"/,
    ],
    [
      'a limit the API refuses',
      yamlText.replace('limit: 1500', 'limit: 99999'),
      /rateLimitPolicies\[2\]\.configuration\.limit: limit must be at most 10000/,
    ],
    [
      'two policies of one identity',
      yamlText.replace('consumer_selector: third_party_clients', 'consumer_selector: default'),
      /rateLimitPolicies\[1\] and rateLimitPolicies\[0\] are the same/,
    ],
    ['rateLimitPolicies not a list', 'rateLimitPolicies: {}\n', /rateLimitPolicies must be a list/],
    ['not YAML', 'rateLimitPolicies: [\n', /cannot parse YAML/],
  ])('refuses %s, at its line', (_what, text, message) => {
    const read = readDeployCliYaml(text, 'tenant.yaml');
    expect(read.resources).toEqual([]);
    expect(read.issues.map((i) => i.message).join('\n')).toMatch(message);
    expect(read.issues[0]!.line).toBeGreaterThan(0);
  });

  it('names the file of a directory export that is not JSON', () => {
    const read = directory((files) => (files[0]!.text = '{ "resource": '));
    expect(read.issues[0]!.file).toBe(
      `${DIR_FIXTURE}/rate-limit-policies/client_idWq2eR7tY9uI1oP3aS5dF7gH9jK1lZ3xC.json`,
    );
    expect(read.issues[0]!.message).toMatch(/^not JSON: /);
  });
});

describe('resolveReferences', () => {
  const read = () => readDeployCliYaml(yamlText, YAML_FIXTURE);

  it('takes an Action id from the tenant’s list by name', () => {
    const lists = {
      actions: [
        { key: 'act-1', name: 'partner-token-check' },
        { key: 'act-2', name: 'other' },
      ],
    };
    const done = resolveReferences(read(), { given: none, lists });
    expect(done.issues).toEqual([]);
    const profile = done.resources.find((r) => r.kind === 'token_exchange_profile')!;
    expect(profile.attributes.action_id).toBe('act-1');
    expect(profile.references).toEqual([]);
  });

  it('takes an id given by name before the tenant’s', () => {
    const given = { actions: new Map([['partner-token-check', 'act-given']]) };
    expect(unresolvedNames(read(), { given }).size).toBe(0);
    const done = resolveReferences(read(), { given, lists: null });
    expect(done.resources.find((r) => r.kind === 'token_exchange_profile')!.attributes.action_id).toBe(
      'act-given',
    );
  });

  it.each([
    [
      'under spec, with nothing given',
      null,
      /names its Action "partner-token-check" by name, and the spec API profile cannot look Action ids up: pass --action-id 'partner-token-check=<id>', or read them from the tenant with --api full$/,
    ],
    [
      'when the tenant has none of that name',
      { actions: [{ key: 'act-2', name: 'other' }] },
      /the tenant has no deployed Action of that name bound to the custom-token-exchange trigger/,
    ],
    [
      'when the tenant has two',
      {
        actions: [
          { key: 'a', name: 'partner-token-check' },
          { key: 'b', name: 'partner-token-check' },
        ],
      },
      /2 on the tenant have that name \(a, b\): pass --action-id 'partner-token-check=<id>'$/,
    ],
  ])('says which profile needs an id %s, at the line of its action', (_when, lists, message) => {
    const done = resolveReferences(read(), { given: none, lists });
    expect(done.resources).toEqual([]);
    expect(done.issues).toHaveLength(1);
    expect(done.issues[0]!.message).toMatch(/^tokenExchangeProfiles\[0\] /);
    expect(flagIssue(done.issues[0]!).message).toMatch(message);
    expect(yamlText.split('\n')[done.issues[0]!.line - 1]).toContain('action: partner-token-check');
  });

  it('checks an id given by hand as the API would', () => {
    const given = { actions: new Map([['partner-token-check', 'x'.repeat(40)]]) };
    const done = resolveReferences(read(), { given, lists: null });
    expect(done.issues[0]!.message).toMatch(/action_id must be at most 36 characters long/);
  });
});
