// Small pieces every page uses: loading data, showing errors, values and JSON readably.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { VectorValue } from './types';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `key` changes (and on reload), keeping the last answer while it runs. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(failure instanceof Error ? failure.message : String(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
    // `key` names everything `load` reads, so it alone decides when to load again.
  }, [key, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { data, error, loading, reload };
}

export function ErrorBox({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <div class="error" role="alert">
      {message}
    </div>
  );
}

export function StatusDot({ status }: { status: string }) {
  return (
    <span class={`status status-${status}`} title={`status: ${status}`}>
      {status}
    </span>
  );
}

export function JsonView({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card">
      <h2>{title}</h2>
      {children}
    </section>
  );
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(4);
}

/** A vector as a short line: its first values and its length. */
export function formatVector(vector: VectorValue | undefined): string {
  if (vector === undefined) return '—';
  if (Array.isArray(vector)) {
    if (vector.length > 0 && Array.isArray(vector[0])) return `multivector: ${vector.length} × ${(vector[0] as number[]).length}`;
    const values = vector as number[];
    const shown = values.slice(0, 4).map(formatNumber).join(', ');
    return `[${shown}${values.length > 4 ? ', …' : ''}] (${values.length} dims)`;
  }
  const sparse = vector;
  return `sparse: ${sparse.indices.length} non-zero`;
}

/** A payload value as short text. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `${value.slice(0, 57)}…` : value;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

export function PayloadView({ payload }: { payload: Record<string, unknown> | null | undefined }) {
  const entries = Object.entries(payload ?? {});
  if (entries.length === 0) return <span class="muted">no payload</span>;
  return (
    <dl class="payload">
      {entries.slice(0, 8).map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{formatValue(value)}</dd>
        </div>
      ))}
      {entries.length > 8 ? <div class="muted">+{entries.length - 8} more</div> : null}
    </dl>
  );
}

/** Parses a JSON text box; an empty box is `undefined`, bad JSON an error naming the box. */
export function parseJsonField(label: string, text: string): { value?: unknown; error?: string } {
  if (text.trim() === '') return {};
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: `${label} is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Which vector a page works on, shown only when the collection has more than one. */
export function VectorSelect({ vectors, using, onChange }: { vectors: { name: string }[]; using: string; onChange: (name: string) => void }) {
  if (vectors.length <= 1) return null;
  return (
    <label>
      Vector{' '}
      <select name="using" value={using} onChange={(event) => onChange(event.currentTarget.value)}>
        {vectors.map((vector) => (
          <option key={vector.name} value={vector.name}>
            {vector.name}
          </option>
        ))}
      </select>
    </label>
  );
}
