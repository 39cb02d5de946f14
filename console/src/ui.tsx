import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, type Page } from './api';

/** An API datetime (`2026-11-22T07:30`, service time zone) as people read it; a dash for none. */
export const when = (value: string | null): string => (value ? value.replace('T', ' ') : '—');

/**
 * The page's title while a screen is shown: each screen has its own (CONTRACT §6). Set with the screen's own
 * render, before the browser paints it, so the title never lags behind the screen.
 */
export function useTitle(screen: string): void {
  useLayoutEffect(() => {
    document.title = `${screen} · Restaurant Orders admin console`;
  }, [screen]);
}

/** What went wrong, as the API said it: its message, the console's advice beside it, each field's messages. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const apiError =
    error instanceof ApiError
      ? error
      : new ApiError(0, error instanceof Error ? error.message : 'Something went wrong.');
  return (
    <div class="error" role="alert">
      <p>{apiError.message}</p>
      {apiError.advice && <p class="advice">{apiError.advice}</p>}
      {apiError.details.length > 0 && (
        <ul>
          {apiError.details.map((detail) => (
            <li key={detail}>{detail}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A labelled input: the label names the field for screen readers and is what tests find it by. */
export function Field(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  /** A secret: typed unseen, never filled in by the browser. */
  secret?: boolean;
  required?: boolean;
  hint?: string;
  autoComplete?: string;
  placeholder?: string;
}) {
  const id = useId();
  const input = {
    id,
    value: props.value,
    required: props.required,
    autoComplete: props.autoComplete ?? 'off',
    placeholder: props.placeholder,
    'aria-describedby': props.hint ? `${id}-hint` : undefined,
    onInput: (event: { currentTarget: HTMLInputElement }) => props.onInput(event.currentTarget.value),
  };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.secret ? <input type="password" {...input} /> : <input type="text" {...input} />}
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** A form whose submit runs `action`, shows "busy" while it runs and the API's error when it fails. */
export function ActionForm(props: {
  label: string;
  submit: string;
  action: () => Promise<void>;
  children: ComponentChildren;
  class?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class={props.class ?? 'card'}
      aria-label={props.label}
      onSubmit={(event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        props
          .action()
          .catch(setError)
          .finally(() => setBusy(false));
      }}
    >
      {props.children}
      <button type="submit" disabled={busy}>
        {busy ? 'Working…' : props.submit}
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

/**
 * A button that asks first: the first press shows what will happen with "Yes" and "Cancel", focus on
 * "Cancel" (the harmless choice); only "Yes" runs the action, Escape cancels. Once the question closes, focus
 * is back on the button; if the action removes the button, on the list around it. Errors are shown beside it.
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirm: string;
  action: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  // Before the browser paints: a key pressed right after the question closes goes to the button.
  useLayoutEffect(() => {
    if (!asking && wasAsking.current) trigger.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  useLayoutEffect(
    () => () => {
      const button = trigger.current;
      if (!button || document.activeElement !== button) return;
      const list = button.closest<HTMLElement>('[role="region"]');
      // After the update that removes the button: the list, unless it went too, else the content.
      setTimeout(() => {
        if (document.activeElement === document.body || !document.activeElement) {
          (list?.isConnected ? list : document.getElementById('content'))?.focus();
        }
      });
    },
    [],
  );
  if (!asking) {
    return (
      <span>
        <button type="button" class="danger" ref={trigger} onClick={() => setAsking(true)}>
          {props.label}
        </button>
        <ErrorMessage error={error} />
      </span>
    );
  }
  return (
    <span
      class="confirm"
      role="group"
      aria-label={props.question}
      onKeyDown={(event) => {
        if (event.key === 'Escape') setAsking(false);
      }}
    >
      <span>{props.question}</span>
      <button
        type="button"
        class="danger"
        onClick={() => {
          setAsking(false);
          setError(null);
          props.action().catch(setError);
        }}
      >
        {props.confirm}
      </button>
      <button type="button" ref={(button) => button?.focus()} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/**
 * A secret the API shows only once: a warning, the value, a copy button, and a way to dismiss it. It takes
 * the focus when it appears, so that it is announced and the keyboard is on it.
 */
export function SecretOnce(props: { title: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="card secret" aria-label={props.title}>
      <h2 ref={heading} tabIndex={-1}>
        {props.title}
      </h2>
      <p class="warning">
        Copy it now and hand it over safely: it is shown this once and cannot be shown again.
      </p>
      <code class="secret-value">{props.secret}</code>
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            navigator.clipboard.writeText(props.secret).then(
              () => setCopied('Copied to the clipboard.'),
              () => setCopied('The browser refused the clipboard: select the text and copy it.'),
            );
          }}
        >
          Copy
        </button>
        <button type="button" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
      <p role="status">{copied}</p>
    </section>
  );
}

export interface Paged<T> {
  rows: T[] | null;
  error: unknown;
  page: number;
  hasNext: boolean;
  setPage: (page: number) => void;
  reload: () => void;
}

/** What GET `path` answers (one object of the admin API, unless `load` reads it otherwise), or its error; null while it loads. */
export function useLoaded<T>(
  path: string,
  load: (path: string) => Promise<T> = (from) => call<T>('GET', from),
): { found: T | null; error: unknown } {
  const [state, setState] = useState<{ found: T | null; error: unknown }>({ found: null, error: null });
  useEffect(() => {
    let current = true;
    load(path).then(
      (found) => current && setState({ found, error: null }),
      (error: unknown) => current && setState({ found: null, error }),
    );
    return () => {
      current = false;
    };
  }, [path]);
  return state;
}

/** One page of a list, loaded again when the page, `key` or a reload asks for it. */
export function usePaged<T>(load: (page: number) => Promise<Page<T>>, key: string): Paged<T> {
  const [page, setPage] = useState(1);
  const [result, setResult] = useState<{ rows: T[] | null; hasNext: boolean; error: unknown }>({
    rows: null,
    hasNext: false,
    error: null,
  });
  const [version, setVersion] = useState(0);
  useEffect(() => setPage(1), [key]);
  useEffect(() => {
    let current = true;
    setResult((previous) => ({ ...previous, error: null }));
    load(page).then(
      (loaded) =>
        current && setResult({ rows: loaded.data, hasNext: loaded.links.next !== null, error: null }),
      (error: unknown) => current && setResult({ rows: [], hasNext: false, error }),
    );
    return () => {
      current = false;
    };
    // `load` is a new function at every render; `key` names what it loads.
  }, [page, key, version]);
  const reload = useCallback(() => setVersion((value) => value + 1), []);
  return { ...result, page, setPage, reload };
}

/** The list's table, its loading and empty states, its error and its pager. */
export function PagedTable<T>(props: {
  label: string;
  paged: Paged<T>;
  empty: string;
  head: ComponentChildren;
  row: (item: T) => ComponentChildren;
}) {
  const { rows, error, page, hasNext, setPage } = props.paged;
  return (
    <div>
      <ErrorMessage error={error} />
      {rows === null ? (
        <p class="loading" role="status">
          Loading…
        </p>
      ) : rows.length === 0 && !error ? (
        <p class="empty">{props.empty}</p>
      ) : (
        rows.length > 0 && (
          <div class="table-wrap" tabIndex={0} role="region" aria-label={props.label}>
            <table>
              <thead>{props.head}</thead>
              <tbody>{rows.map(props.row)}</tbody>
            </table>
          </div>
        )
      )}
      <nav class="pager" aria-label={`${props.label}: pages`}>
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <span>Page {page}</span>
        <button type="button" disabled={!hasNext} onClick={() => setPage(page + 1)}>
          Next page
        </button>
      </nav>
    </div>
  );
}
