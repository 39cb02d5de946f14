import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { query, session, whenTokenRefused } from './api';
import { Audit, type AuditFilter } from './screens/audit';
import { Companies } from './screens/companies';
import { DeliveryScreen } from './screens/delivery';
import { EndpointSettings } from './screens/endpoint-settings';
import { ORDER_FILTER_KEYS, type OrderFilter, Orders, OrderScreen } from './screens/orders';
import { Products } from './screens/products';
import { REQUEST_FILTER_KEYS, type RequestFilter, Requests, RequestScreen } from './screens/requests';
import { Imports, ImportScreen } from './screens/imports';
import { SignIn } from './screens/sign-in';
import { Tokens } from './screens/tokens';
import { Webhooks } from './screens/webhooks';

/** Where the console is: the part of the address after `#`, e.g. `/companies/3/tokens` or `/audit?company_id=3`. */
function useRoute(): { path: string; params: URLSearchParams } {
  const read = () => {
    const [path, search] = (location.hash.replace(/^#/, '') || '/companies').split('?');
    return { path, params: new URLSearchParams(search ?? '') };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function Screen({ path, params }: { path: string; params: URLSearchParams }) {
  const companyScreen = /^\/companies\/(\d+)\/(tokens|webhooks)$/.exec(path);
  if (companyScreen) {
    const companyId = Number(companyScreen[1]);
    // Keyed by company: another company's screen starts empty (no secret, log or error of the previous one).
    return companyScreen[2] === 'tokens' ? (
      <Tokens key={`tokens-${companyId}`} companyId={companyId} />
    ) : (
      <Webhooks key={`webhooks-${companyId}`} companyId={companyId} />
    );
  }
  const delivery = /^\/webhooks\/(\d+)\/deliveries\/(\d+)$/.exec(path);
  if (delivery) return <DeliveryScreen key={path} endpointId={delivery[1]} deliveryId={delivery[2]} />;
  const endpointScreen = /^\/webhooks\/(\d+)$/.exec(path);
  if (endpointScreen) {
    const endpointId = Number(endpointScreen[1]);
    return <EndpointSettings key={`endpoint-${endpointId}`} endpointId={endpointId} />;
  }
  if (path === '/products') return <Products />;
  const orderScreen = /^\/orders\/(\d+)$/.exec(path);
  if (orderScreen) return <OrderScreen key={orderScreen[1]} orderId={Number(orderScreen[1])} />;
  if (path === '/orders') {
    const filter: OrderFilter = Object.fromEntries(
      ORDER_FILTER_KEYS.flatMap((key) => (params.get(key) ? [[key, params.get(key)!]] : [])),
    );
    return (
      <Orders
        key={params.toString()}
        filter={filter}
        onFilter={(next) => {
          const search = query(next);
          location.hash = `/orders${search}`;
        }}
      />
    );
  }
  const requestScreen = /^\/requests\/([^/]+)$/.exec(path);
  if (requestScreen) {
    const requestId = decodeURIComponent(requestScreen[1]);
    return <RequestScreen key={requestId} requestId={requestId} />;
  }
  if (path === '/requests') {
    const filter: RequestFilter = Object.fromEntries(
      REQUEST_FILTER_KEYS.flatMap((key) => (params.get(key) ? [[key, params.get(key)!]] : [])),
    );
    return (
      <Requests
        key={params.toString()}
        filter={filter}
        onFilter={(next) => {
          location.hash = `/requests${query(next)}`;
        }}
      />
    );
  }
  const importScreen = /^\/imports\/(\d+)$/.exec(path);
  if (importScreen) return <ImportScreen key={importScreen[1]} id={importScreen[1]} />;
  if (path === '/imports') {
    return (
      <Imports
        key={params.toString()}
        companyId={params.get('company_id') ?? undefined}
        onFilter={(companyId) => {
          location.hash = `/imports${query({ company_id: companyId })}`;
        }}
      />
    );
  }
  if (path === '/audit') {
    const filter: AuditFilter = {
      company_id: params.get('company_id') ?? undefined,
      token_id: params.get('token_id') ?? undefined,
    };
    return (
      <Audit
        key={params.toString()}
        filter={filter}
        onFilter={(next) => {
          const search = new URLSearchParams(
            Object.entries(next).filter((entry): entry is [string, string] => entry[1] !== undefined),
          ).toString();
          location.hash = `/audit${search ? `?${search}` : ''}`;
        }}
      />
    );
  }
  return <Companies />;
}

const NAVIGATION = [
  ['/companies', 'Companies'],
  ['/products', 'Products'],
  ['/orders', 'Orders'],
  ['/requests', 'Requests'],
  ['/imports', 'Imports'],
  ['/audit', 'Audit trail'],
] as const;

function App() {
  const [signedIn, setSignedIn] = useState(() => session.token() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();
  // Set while rendering, not in an effect: the screens' first requests (their effects run first) may be refused.
  whenTokenRefused(() => {
    setNotice('The API refused your token (revoked or expired): it has been forgotten. Sign in again.');
    setSignedIn(false);
  });
  if (!signedIn) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={() => {
          setNotice(null);
          setSignedIn(true);
        }}
      />
    );
  }
  return (
    <>
      <a
        class="skip"
        href="#content"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('content')?.focus();
        }}
      >
        Skip to the content
      </a>
      <header>
        <span class="brand">Restaurant Orders · Admin</span>
        <nav aria-label="Main">
          {NAVIGATION.map(([path, label]) => (
            <a key={path} href={`#${path}`} aria-current={route.path.startsWith(path) ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          onClick={() => {
            session.forget();
            setNotice('Signed out: the token has been forgotten.');
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <div id="content" tabIndex={-1}>
        <Screen path={route.path} params={route.params} />
      </div>
    </>
  );
}

const root = document.getElementById('app')!;
// The page's "Loading…" placeholder gives way to the console.
root.replaceChildren();
render(<App />, root);
