/**
 * The kind-naming parts of schemas/config.schema.json, plan.schema.json and
 * state.schema.json are generated from the kinds' declarations
 * (scripts/gen-kind-schemas.mjs, `npm run gen:schemas`): this fails while the
 * files say something else than KINDS does.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  emulatorModulesFor,
  KIND_REGISTRIES,
  KIND_SCHEMA_FILES,
  KIND_WORDS_FILE,
  kindSchemas,
  kindWords,
  listedNames,
  orderKinds,
  packageDescription,
  registryModule,
} from '../scripts/kind-schemas.mjs';
import { EMULATOR_KINDS } from '../src/emulator/index.js';
import { KIND_WORDS } from '../src/cli/kind-words.js';
import { KINDS, rateLimitPolicy, type KindModule } from '../src/resources/index.js';
import type { JsonSchema } from '../src/schemas/index.js';

const load = (file: string) =>
  JSON.parse(readFileSync(new URL(`../schemas/${file}`, import.meta.url), 'utf8')) as JsonSchema;

function documents(): Record<string, JsonSchema> {
  return Object.fromEntries(
    KIND_SCHEMA_FILES.map((file) => [
      file,
      JSON.parse(readFileSync(new URL(`../schemas/${file}`, import.meta.url), 'utf8')) as JsonSchema,
    ]),
  );
}

/** A kind that only these tests know, grouped by an owner like permissions. */
const widget: KindModule = {
  ...rateLimitPolicy,
  name: 'widget',
  config: {
    ...rateLimitPolicy.config,
    key: 'widgets',
    file: 'widgets.yaml',
    description: 'Widgets.',
    schema: 'widget-items.schema.json',
    group: {
      by: 'owner_id',
      byField: { type: 'string' },
      owner: { one: 'owner', many: 'owners' },
      list: 'widgets',
      member: { one: 'widget', many: 'widgets' },
    },
  },
};

describe('schemas generated from the kind declarations', () => {
  it.each(KIND_SCHEMA_FILES.map((f) => [f] as const))(
    '%s is up to date with KINDS (else run npm run gen:schemas)',
    (file) => {
      expect(documents()[file]).toEqual(kindSchemas(KINDS, documents())[file]);
    },
  );

  it('lists a new kind in the config schema and in every kind enum', () => {
    const made = kindSchemas([...KINDS, widget], documents());
    const config = made['config.schema.json']!;
    expect((config.properties as Record<string, JsonSchema>).widgets).toEqual({
      description: 'Widgets.',
      type: ['array', 'null'],
      items: { $ref: '#/$defs/widgets_entry' },
    });
    expect((config.$defs as Record<string, JsonSchema>).widgets_entry).toEqual({
      type: 'object',
      required: ['owner_id', 'widgets'],
      additionalProperties: false,
      properties: { owner_id: { type: 'string' }, widgets: { $ref: 'widget-items.schema.json' } },
    });
    const enums = (file: string) =>
      [...JSON.stringify(made[file]).matchAll(/"kind":\{"enum":(\[[^\]]*\])/g)].map((m) => JSON.parse(m[1]!));
    for (const file of ['plan.schema.json', 'state.schema.json']) {
      expect(enums(file).length).toBeGreaterThan(0);
      for (const names of enums(file)) expect(names).toEqual([...KINDS.map((k) => k.name), 'widget']);
    }
  });

  it(`${KIND_WORDS_FILE} and package.json's description name KINDS (else run npm run gen:schemas)`, () => {
    const words = kindWords(KINDS, load);
    expect(KIND_WORDS).toEqual(words);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      description: string;
    };
    expect(pkg.description).toBe(packageDescription(words));
  });

  it('names a new kind in the words of the command line, its ids by their prefix', () => {
    const words = kindWords([...KINDS, { ...widget, identityFields: ['owner_id'] }], load);
    const withIds = KINDS.filter((k) => k.id !== null);
    expect(words.phrase).toBe(`${KINDS.map((k) => k.title.many).join(', ')} and rate limit policies`);
    expect(words.importKinds).toBe([...withIds.map((k) => k.name), 'widget'].join(', '));
    expect(words.importIdentities).toMatch(
      /^resource\/consumer\/consumer_selector, the subject_token_type, .*or the owner_id$/,
    );
    expect(words.idPrefixes).toMatch(/^rlp_…, tep_…, .*rlp_…$/);
  });
});

describe('the lists of kinds generated from the files that declare them', () => {
  const found = (value: KindModule, file = `${value.name}.ts`) => ({ file, exportName: value.name, value });
  const listed = (registry: keyof typeof KIND_REGISTRIES) =>
    listedNames(readFileSync(new URL(`../${KIND_REGISTRIES[registry].file}`, import.meta.url), 'utf8'));

  it('hold KINDS and EMULATOR_KINDS in the order they are listed', () => {
    expect(listed('kinds')).toHaveLength(KINDS.length);
    expect(EMULATOR_KINDS.map((m) => m.kind.name)).toEqual(KINDS.map((k) => k.name));
    expect(listed('emulator')).toHaveLength(KINDS.length);
  });

  it('keep the listed order and put a new kind after the others', () => {
    const kinds = KINDS.map((k) => found(k));
    const ordered = orderKinds(
      [found(widget), ...[...kinds].reverse()],
      KINDS.map((k) => k.name),
    );
    expect(ordered.map((e) => e.value.name)).toEqual([...KINDS.map((k) => k.name), 'widget']);
  });

  it('refuse two declarations of one name, config key or file', () => {
    expect(() => orderKinds([found(widget), found({ ...widget, name: 'gadget' }, 'gadget.ts')], [])).toThrow(
      'kinds widget (widget.ts) and gadget (gadget.ts) clash',
    );
  });

  it('name a kind that has no emulator module', () => {
    const modules = EMULATOR_KINDS.map((m) => ({ file: `${m.key}.ts`, exportName: m.key, value: m }));
    expect(emulatorModulesFor(KINDS, modules).map((m) => m.value)).toEqual([...EMULATOR_KINDS]);
    expect(() => emulatorModulesFor([...KINDS, widget], modules)).toThrow(
      /^kind widget has no emulator module/,
    );
  });

  it('import each file once and list the exports in order', () => {
    const text = registryModule(
      KIND_REGISTRIES.kinds,
      [found(widget, 'widget.ts'), found(rateLimitPolicy, 'rate-limit-policy.ts')],
      'The kinds.',
    );
    expect(text).toContain(
      "import { rate_limit_policy } from './rate-limit-policy.js';\nimport { widget } from './widget.js';",
    );
    expect(text).toContain('export const SHIPPED = [widget, rate_limit_policy] as const;');
    expect(listedNames(text)).toEqual(['widget', 'rate_limit_policy']);
  });
});
