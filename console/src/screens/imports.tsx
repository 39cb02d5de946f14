import { useState } from 'preact/hooks';
import { call, callLines, type ImportLineResult, type OrderImport, type Page, query } from '../api';
import { FilterForm } from '../filters';
import { ErrorMessage, Field, PagedTable, useLoaded, usePaged, useTitle, when } from '../ui';

/** The failed lines an import's screen shows at most; the API streams every line's result. */
const FAILED_SHOWN = 100;

/**
 * The companies' bulk imports (CONTRACT §4.11), newest first, or one company's: each with its state and its
 * counts, linking to its failed lines.
 */
export function Imports({
  companyId,
  onFilter,
}: {
  companyId: string | undefined;
  onFilter: (companyId: string | undefined) => void;
}) {
  const paged = usePaged(
    (page) => call<Page<OrderImport>>('GET', `/orders/imports${query({ company_id: companyId, page })}`),
    companyId ?? '',
  );
  const [draft, setDraft] = useState(companyId ?? '');
  useTitle(companyId ? `Imports of company ${companyId}` : 'Imports');
  return (
    <main>
      <h1>Imports{companyId && ` of company ${companyId}`}</h1>
      <FilterForm
        label="Filter the imports"
        onApply={() => onFilter(draft.trim() || undefined)}
        onClear={() => {
          setDraft('');
          onFilter(undefined);
        }}
      >
        <Field label="Company id" value={draft} onInput={setDraft} hint="Empty: every company." />
      </FilterForm>
      <PagedTable
        label="Imports found"
        paged={paged}
        empty="No import yet."
        head={
          <tr>
            <th scope="col">Import</th>
            <th scope="col">Uploaded</th>
            <th scope="col">Company</th>
            <th scope="col">State</th>
            <th scope="col">Lines</th>
            <th scope="col">Placed</th>
            <th scope="col">Failed</th>
          </tr>
        }
        row={(entry) => (
          <tr key={entry.id}>
            <td>
              <a href={`#/imports/${entry.id}`}>
                Import {entry.id} ({entry.format}
                {entry.dry_run ? ', dry run' : ''})
              </a>
            </td>
            <td>{when(entry.created_at)}</td>
            <td>
              <a href={`#/imports?company_id=${entry.company_id}`}>{entry.company_id}</a>
            </td>
            <td>
              <span class={`status status-${entry.state}`}>{entry.state}</span>
            </td>
            <td>{entry.total}</td>
            <td>{entry.placed}</td>
            <td>{entry.failed}</td>
          </tr>
        )}
      />
    </main>
  );
}

/** One import: its counts and times, and its failed lines with exactly the errors POST /order gave each. */
export function ImportScreen({ id }: { id: string }) {
  const { found, error } = useLoaded<OrderImport>(`/orders/imports/${id}`);
  const results = useLoaded<ImportLineResult[]>(`/orders/imports/${id}/results`, (path) =>
    callLines<ImportLineResult>(path),
  );
  const failed = (results.found ?? []).filter((result) => result.errors !== undefined);
  useTitle(`Import ${id}`);
  return (
    <main>
      <p>
        <a href={found ? `#/imports?company_id=${found.company_id}` : '#/imports'}>← Imports</a>
      </p>
      <h1>Import {id}</h1>
      <ErrorMessage error={error ?? results.error} />
      {found && (
        <section class="card" aria-labelledby="import-summary">
          <h2 id="import-summary">Summary</h2>
          <dl class="facts">
            <dt>Company</dt>
            <dd>
              <a href={`#/imports?company_id=${found.company_id}`}>{found.company_id}</a>
            </dd>
            <dt>File</dt>
            <dd>
              {found.format}, {found.total} lines{found.dry_run ? ', a dry run (nothing placed)' : ''}
            </dd>
            <dt>State</dt>
            <dd>
              <span class={`status status-${found.state}`}>{found.state}</span>
            </dd>
            <dt>{found.dry_run ? 'Valid' : 'Placed'}</dt>
            <dd>{found.placed}</dd>
            <dt>Failed</dt>
            <dd>{found.failed}</dd>
            <dt>Uploaded</dt>
            <dd>{when(found.created_at)}</dd>
            <dt>Started</dt>
            <dd>{found.started_at ? when(found.started_at) : '—'}</dd>
            <dt>Finished</dt>
            <dd>{found.finished_at ? when(found.finished_at) : '—'}</dd>
          </dl>
        </section>
      )}
      <section aria-labelledby="import-failed">
        <h2 id="import-failed">Failed lines</h2>
        {results.found === null && !results.error ? (
          <p class="loading" role="status">
            Loading…
          </p>
        ) : failed.length === 0 ? (
          <p class="hint">None so far.</p>
        ) : (
          <>
            {failed.length > FAILED_SHOWN && (
              <p class="hint">
                The first {FAILED_SHOWN} of {failed.length}; the API streams them all (GET
                /api/v2/admin/orders/imports/{id}/results).
              </p>
            )}
            <ol class="timeline">
              {failed.slice(0, FAILED_SHOWN).map((result) => (
                <li key={result.line}>
                  Line {result.line}:
                  <ul>
                    {Object.entries(result.errors ?? {}).flatMap(([field, messages]) =>
                      messages.map((message) => (
                        <li key={`${field}-${message}`}>
                          <code>{field}</code> {message}
                        </li>
                      )),
                    )}
                  </ul>
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
    </main>
  );
}
