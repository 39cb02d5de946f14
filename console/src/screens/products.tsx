import { useState } from 'preact/hooks';
import { call, type Page, type Product, query } from '../api';
import { FilterForm, SelectField } from '../filters';
import { ActionForm, ErrorMessage, Field, PagedTable, usePaged, useTitle } from '../ui';

/** Every product, inactive ones too: create, rename, add a variation, deactivate and reactivate. */
const ACTIVE = [
  ['', 'Any'],
  ['true', 'Active'],
  ['false', 'Inactive'],
] as const;

export function Products() {
  const [filter, setFilter] = useState({ name: '', active: '' });
  const [nameFilter, setNameFilter] = useState('');
  const [activeFilter, setActiveFilter] = useState('');
  const paged = usePaged(
    (page) => call<Page<Product>>('GET', `/products${query({ ...filter, page })}`),
    `products-${filter.name}-${filter.active}`,
  );
  const [name, setName] = useState('');
  const [variations, setVariations] = useState('');
  useTitle('Products');
  return (
    <main>
      <h1>Products</h1>
      <ActionForm
        label="Create a product"
        submit="Create product"
        action={async () => {
          await call<Product>('POST', '/products', {
            name,
            variations: variations
              .split(',')
              .map((variation) => variation.trim())
              .filter(Boolean)
              .map((variation) => ({ name: variation })),
          });
          setName('');
          setVariations('');
          paged.reload();
        }}
      >
        <h2>Create a product</h2>
        <div class="row">
          <Field label="Product name" value={name} onInput={setName} required />
          <Field
            label="Variations (optional)"
            value={variations}
            onInput={setVariations}
            hint="Comma-separated, e.g. Black, White."
          />
        </div>
      </ActionForm>
      <FilterForm
        label="Filter the products"
        onApply={() => setFilter({ name: nameFilter.trim(), active: activeFilter })}
        onClear={() => {
          setNameFilter('');
          setActiveFilter('');
          setFilter({ name: '', active: '' });
        }}
      >
        <Field
          label="Search products"
          value={nameFilter}
          onInput={setNameFilter}
          hint="A part of the product's name, in any case."
        />
        <SelectField label="Status" value={activeFilter} onChange={setActiveFilter} options={ACTIVE} />
      </FilterForm>
      <PagedTable
        label="Products"
        paged={paged}
        empty={
          filter.name || filter.active
            ? 'No product matches this filter.'
            : 'No products yet: create the first one above.'
        }
        head={
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Name</th>
            <th scope="col">Variations</th>
            <th scope="col">Status</th>
            <th scope="col">Change</th>
          </tr>
        }
        row={(product) => <ProductRow key={product.id} product={product} changed={paged.reload} />}
      />
    </main>
  );
}

function ProductRow({ product, changed }: { product: Product; changed: () => void }) {
  const [editing, setEditing] = useState<'rename' | 'variation' | null>(null);
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>(null);
  const open = (form: 'rename' | 'variation') => {
    setValue(form === 'rename' ? product.name : '');
    setEditing(form);
  };
  return (
    <tr>
      <td>{product.id}</td>
      <td>{product.name}</td>
      <td>{product.variations.map((variation) => variation.name).join(', ') || '—'}</td>
      <td>{product.active ? 'Active' : 'Inactive'}</td>
      <td class="links">
        {editing ? (
          <ActionForm
            class="inline"
            label={editing === 'rename' ? `Rename ${product.name}` : `Add a variation to ${product.name}`}
            submit={editing === 'rename' ? 'Save name' : 'Add variation'}
            action={async () => {
              if (editing === 'rename') await call('PATCH', `/products/${product.id}`, { name: value });
              else await call('POST', `/products/${product.id}/variations`, { name: value });
              setEditing(null);
              changed();
            }}
          >
            <Field
              label={editing === 'rename' ? 'New name' : 'Variation name'}
              value={value}
              onInput={setValue}
            />
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </ActionForm>
        ) : (
          <>
            <button type="button" aria-label={`Rename ${product.name}`} onClick={() => open('rename')}>
              Rename
            </button>
            <button
              type="button"
              aria-label={`Add a variation to ${product.name}`}
              onClick={() => open('variation')}
            >
              Add variation
            </button>
            <button
              type="button"
              aria-label={`${product.active ? 'Deactivate' : 'Reactivate'} ${product.name}`}
              onClick={() => {
                setError(null);
                call('PATCH', `/products/${product.id}`, { active: !product.active }).then(changed, setError);
              }}
            >
              {product.active ? 'Deactivate' : 'Reactivate'}
            </button>
          </>
        )}
        <ErrorMessage error={error} />
      </td>
    </tr>
  );
}
