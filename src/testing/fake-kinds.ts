import { isStatusKind, RECORD_KINDS, STATUS_KINDS, type RecordOf, type StatusKind } from '../kinds.js';
import { quote } from '../internal/quote.js';

// What the fake does by kind; paths, schemas and names come from the kinds table, so a new kind needs only its entry here.

interface FakeKind<K extends StatusKind> {
  /** The fields a patch sets on `record` (a nested object the kind merges is merged field by field). */
  readonly merge: (record: RecordOf<K>, patch: Partial<RecordOf<K>>) => Record<string, unknown>;
  readonly withStatus: (status: string) => Partial<RecordOf<K>>;
  /** The kind's successful end, the status its provider event announces. */
  readonly settled: string;
}

/** The compiler asks for an entry for each kind of the table. */
const FAKE_KINDS: { readonly [K in StatusKind]: FakeKind<K> } = {
  order: {
    merge: (order, patch) =>
      patch.settlement != null && typeof patch.settlement === 'object'
        ? { ...patch, settlement: { ...(order.settlement ?? {}), ...patch.settlement } }
        : { ...patch },
    withStatus: (status) => ({ settlement: { status } }),
    settled: 'Settled',
  },
  withdrawal: {
    merge: (_withdrawal, patch) => ({ ...patch }),
    withStatus: (status) => ({ status }),
    settled: 'Completed',
  },
};

export function fakeKind(kind: StatusKind): FakeKind<StatusKind> {
  return FAKE_KINDS[kind] as unknown as FakeKind<StatusKind>;
}

export function kindList(extra: readonly string[] = []): string {
  const names = [...extra, ...STATUS_KINDS].map((name) => quote(name));
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`;
}

export function checkKind(kind: unknown, caller: string): StatusKind {
  if (!isStatusKind(kind)) throw new TypeError(`${caller}: kind must be ${kindList()}, got ${quote(kind)}`);
  return kind;
}

const READS = STATUS_KINDS.map((kind) => {
  const [before = '', after = ''] = RECORD_KINDS[kind].path.split('{externalId}');
  return { kind, pattern: new RegExp(`^${escapeRegExp(before)}([^/]+)${escapeRegExp(after)}/?$`) };
});

/** The kind and the still percent-encoded externalId of a status read, or `undefined`. */
export function recordRead(route: string): { kind: StatusKind; rawId: string } | undefined {
  for (const { kind, pattern } of READS) {
    const rawId = pattern.exec(route)?.[1];
    if (rawId !== undefined) return { kind, rawId };
  }
  return undefined;
}

export function recordReadShapes(): [shape: string, name: string][] {
  return STATUS_KINDS.map((kind) => {
    const { path } = RECORD_KINDS[kind];
    return [path.replace('{externalId}', ':'), `GET ${path}`];
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
