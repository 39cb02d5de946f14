import { useState } from 'preact/hooks';
import { call, type Company, type Page, query } from '../api';
import { FilterForm } from '../filters';
import { ActionForm, Field, PagedTable, usePaged, useTitle, when } from '../ui';

export function Companies() {
  const [filter, setFilter] = useState({ name: '', site: '' });
  const [nameFilter, setNameFilter] = useState('');
  const [siteFilter, setSiteFilter] = useState('');
  const paged = usePaged(
    (page) => call<Page<Company>>('GET', `/companies${query({ ...filter, page })}`),
    `companies-${filter.name}-${filter.site}`,
  );
  const [name, setName] = useState('');
  const [site, setSite] = useState('');
  const [created, setCreated] = useState<Company | null>(null);
  useTitle('Companies');
  return (
    <main>
      <h1>Companies</h1>
      <ActionForm
        label="Create a company"
        submit="Create company"
        action={async () => {
          setCreated(await call<Company>('POST', '/companies', { name, site }));
          setName('');
          setSite('');
          paged.reload();
        }}
      >
        <h2>Create a company</h2>
        <div class="row">
          <Field label="Name" value={name} onInput={setName} required />
          <Field
            label="Site"
            value={site}
            onInput={setSite}
            required
            hint="Market code, e.g. SK, CZ, PL, HU, AT."
          />
        </div>
      </ActionForm>
      {created && (
        <p role="status" class="success">
          Created company {created.id}, {created.name} ({created.site}).
        </p>
      )}
      <FilterForm
        label="Filter the companies"
        onApply={() => setFilter({ name: nameFilter.trim(), site: siteFilter.trim() })}
        onClear={() => {
          setNameFilter('');
          setSiteFilter('');
          setFilter({ name: '', site: '' });
        }}
      >
        <Field
          label="Search companies"
          value={nameFilter}
          onInput={setNameFilter}
          hint="A part of the company's name, in any case."
        />
        <Field
          label="Market"
          value={siteFilter}
          onInput={setSiteFilter}
          hint="A market code, e.g. SK; empty: all."
        />
      </FilterForm>
      <PagedTable
        label="Companies"
        paged={paged}
        empty={
          filter.name || filter.site
            ? 'No company matches this filter.'
            : 'No companies yet: create the first one above.'
        }
        head={
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Name</th>
            <th scope="col">Site</th>
            <th scope="col">Created</th>
            <th scope="col">Manage</th>
          </tr>
        }
        row={(company) => (
          <tr key={company.id}>
            <td>{company.id}</td>
            <td>{company.name}</td>
            <td>{company.site}</td>
            <td>{when(company.created_at)}</td>
            <td class="links">
              <a href={`#/companies/${company.id}/tokens`} aria-label={`Tokens of ${company.name}`}>
                Tokens
              </a>
              <a href={`#/companies/${company.id}/webhooks`} aria-label={`Webhooks of ${company.name}`}>
                Webhooks
              </a>
              <a href={`#/requests?company_id=${company.id}`} aria-label={`Requests of ${company.name}`}>
                Requests
              </a>
              <a href={`#/imports?company_id=${company.id}`} aria-label={`Imports of ${company.name}`}>
                Imports
              </a>
              <a href={`#/audit?company_id=${company.id}`} aria-label={`Audit trail of ${company.name}`}>
                Audit trail
              </a>
            </td>
          </tr>
        )}
      />
    </main>
  );
}
