/**
 * docs/commands.md and docs/configuration-reference.md are generated from
 * src/cli/definitions.ts and schemas/ (scripts/gen-docs.mjs, `npm run
 * gen:docs`): this fails while either page says something else than the
 * commands and schemas do, and checks that the generator carries what a
 * reader needs (defaults, choices, bounds, the variants of a configuration).
 */
import { Command, Option } from '@commander-js/extra-typings';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  COMMANDS_PAGE,
  CONFIGURATION_PAGE,
  commandReference,
  configurationReference,
  identityTable,
  KIND_TABLES,
  ROUTE_SOURCES,
  routeSourceTable,
  withRegion,
} from '../scripts/docs-reference.mjs';
import * as emulator from '../src/emulator/index.js';
import * as resources from '../src/resources/index.js';
import { parse } from 'yaml';
import { buildProgram } from '../src/cli/main.js';
import type { CommandIO } from '../src/cli/io.js';

const ROOT = new URL('..', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const schema = (file: string): unknown => JSON.parse(read(`schemas/${file}`));

function program() {
  const quiet = { write: () => true };
  const io: CommandIO = { stdout: quiet, stderr: quiet, env: {}, cwd: '.' };
  return buildProgram(io, () => {});
}

describe('the generated references', () => {
  it(`${COMMANDS_PAGE} is up to date with src/cli/definitions.ts (else run npm run gen:docs)`, () => {
    expect(read(COMMANDS_PAGE)).toBe(commandReference(program()));
  });

  it(`${CONFIGURATION_PAGE} is up to date with schemas/ (else run npm run gen:docs)`, () => {
    expect(read(CONFIGURATION_PAGE)).toBe(configurationReference(schema));
  });

  it.each(KIND_TABLES.map((t) => [t.page, t.region] as const))(
    '%s: its table of the kinds (region %s) is up to date with KINDS (else run npm run gen:docs)',
    (page, region) => {
      const text = read(page);
      expect(text).toBe(withRegion(text, region, identityTable(resources, parse)));
    },
  );

  it(`${ROUTE_SOURCES.page}: its route table is up to date with the emulator modules' sources (else run npm run gen:docs)`, () => {
    const text = read(ROUTE_SOURCES.page);
    expect(text).toBe(withRegion(text, ROUTE_SOURCES.region, routeSourceTable(emulator)));
  });

  it('writes a row per route of every emulator module, then what every route answers', () => {
    const rows = routeSourceTable(emulator).split('\n').slice(2, -1);
    expect(rows[0]).toBe(
      '| `POST /rate-limit-policies` | 201, the policy; 409 for the same resource + consumer + consumer_selector; 400 for a body the schema refuses | spec |',
    );
    expect(rows).toContain(
      '| `GET /rate-limit-policies`, `GET /rate-limit-policies/{id}` | checkpoint pages (`take`, `from`, `next`), filters `resource`, `consumer`, `consumer_selector`; 50 a page unless asked | SDK; 100 as the largest page is a choice |',
    );
    expect(rows.some((row) => row.startsWith('| `GET /logs` |'))).toBe(true);
    expect(rows.at(-1)).toMatch(/^\| every route \| 401, 403 naming the scope/);
  });

  it('writes a row per kind, its address from its example', () => {
    const rows = identityTable(resources, parse).split('\n').slice(2, -1);
    expect(rows.map((row) => row.split(' | ')[0]!.slice(2))).toEqual(resources.KINDS.map((k) => k.title.one));
    expect(rows[0]).toBe(
      '| rate limit policy | resource + consumer + consumer_selector | `rate_limit_policy["oauth_authentication_api","client","default"]` |',
    );
    expect(() => withRegion('no region here', 'kinds', 'x')).toThrow('no region "kinds"');
  });

  it.each([COMMANDS_PAGE, CONFIGURATION_PAGE])(
    '%s holds no shell block (the recipe test would run it)',
    (page) => {
      expect(read(page)).not.toMatch(/^\s*(```|~~~)\s*(sh|bash|console)\b/m);
    },
  );
});

describe('commandReference', () => {
  const made = () => {
    const p = new Command('tenantform');
    p.command('deploy')
      .description('send it | all of it')
      .argument('<dir>', 'where from')
      .argument('[more...]', 'others', ['a'])
      .addOption(new Option('--mode <MODE>', 'how').choices(['fast', 'slow']).default('fast'))
      .addOption(new Option('--wait <DURATION>', 'how long').default('5m', '5m, then stop'))
      .option('--secret-ish', 'never shown', false)
      .addOption(new Option('--internal', 'hidden').hideHelp())
      .addHelpText('after', '\nExamples:\n  $ tenantform deploy here');
    return commandReference(p);
  };

  it('lists every command with its arguments, options, defaults, choices and examples', () => {
    const page = made();
    expect(page).toContain('| [`tenantform deploy`](#tenantform-deploy) | send it \\| all of it |');
    expect(page).toContain('Usage: `tenantform deploy [options] <dir> [more...]`');
    expect(page).toContain('| `[more...]` | others | default: `["a"]`; several allowed |');
    expect(page).toContain('| `--mode <MODE>` | how | default: `fast`; one of `fast`, `slow` |');
    expect(page).toContain('| `--wait <DURATION>` | how long | default: `5m, then stop` |');
    expect(page).toContain('| `--secret-ish` | never shown |  |');
    expect(page).not.toContain('--internal');
    expect(page).toContain('```text\nExamples:\n  $ tenantform deploy here\n```');
  });

  it('lists a flag added to a definition (a stale page would not have it)', () => {
    const p = program();
    p.commands
      .find((c) => c.name() === 'plan')!
      .addOption(new Option('--brand-new <N>', 'a flag nobody documented').default('7', '7'));
    const page = commandReference(p);
    expect(page).toContain('| `--brand-new <N>` | a flag nobody documented | default: `7` |');
    expect(page).not.toBe(read(COMMANDS_PAGE));
  });

  it('lists the subcommands of state, each with its own section', () => {
    const page = commandReference(program());
    for (const sub of ['list', 'show', 'rm', 'rescue', 'repair', 'migrate']) {
      expect(page).toContain(`## tenantform state ${sub}\n`);
    }
    expect(page).toContain('| `--from <SPEC>` | file:PATH or pg[:WORKSPACE] | required |');
  });
});

describe('configurationReference', () => {
  const documents: Record<string, unknown> = {
    'config.schema.json': {
      description: 'A file.',
      additionalProperties: false,
      properties: {
        gadgets: { description: 'Gadgets.', type: ['array', 'null'], items: { $ref: 'gadget.schema.json' } },
      },
    },
    'gadget.schema.json': {
      title: 'Gadget',
      type: 'object',
      required: ['name', 'mode'],
      additionalProperties: false,
      properties: {
        name: { $ref: '#/$defs/name' },
        mode: { $ref: 'mode.schema.json' },
        tags: { type: 'array', minItems: 1, items: { type: 'object', properties: { v: { const: 'x' } } } },
      },
      $defs: { name: { type: 'string', minLength: 3, maxLength: 50, description: 'What | it is called.' } },
    },
    'mode.schema.json': {
      type: 'object',
      required: ['kind'],
      properties: { kind: { type: 'string', enum: ['off', 'on', 'loud'] } },
      discriminator: { propertyName: 'kind' },
      oneOf: [
        { properties: { kind: { const: 'off' } } },
        {
          properties: { kind: { enum: ['on', 'loud'] }, level: { type: 'integer', minimum: 0, maximum: 9 } },
          required: ['kind', 'level'],
        },
        { properties: { kind: { const: 'loud' }, volume: { type: 'integer', minimum: 1 } } },
      ],
    },
  };
  const page = () => configurationReference((file) => documents[file]);

  it('lists every key with its type, whether it is required, its bounds and description, following $ref', () => {
    expect(page()).toContain('## gadgets\n\nGadgets.');
    expect(page()).toContain('| `name` | string | yes | 3 to 50 characters | What \\| it is called. |');
    expect(page()).toContain('| `mode.kind` | string | yes | one of `off`, `on`, `loud` |  |');
    expect(page()).toContain('| `tags` | list | no | at least 1 entry |  |');
    expect(page()).toContain('| `tags[].v` | string | no | exactly `x` |  |');
    expect(page()).toContain('any other top-level key is an error');
  });

  it('says in which variants of a discriminated configuration a key is required or allowed', () => {
    expect(page()).toContain('| `mode.level` | integer | when kind is on or loud | 0 to 9 |  |');
    expect(page()).toContain('| `mode.volume` | integer | no; only when kind is loud | at least 1 |  |');
  });

  it('names a $ref that points at nothing', () => {
    documents['gadget.schema.json'] = {
      properties: { name: { $ref: '#/$defs/missing' } },
    };
    expect(page).toThrow('gadget.schema.json: $ref #/$defs/missing points at nothing');
  });
});
