import request from 'supertest';

let counter = 0;
/** A number no other call in this process returns: the source of every unique value in a spec. */
export const next = (): number => (counter += 1);
export const unique = (label: string): string => `${label}-${process.pid}-${next()}`;

export type Body = Record<string, unknown>;

export interface Partner {
  companyId: number;
  site: string;
  token: string;
  tokenId: number;
  userName: string;
}

export interface ProductView {
  id: number;
  name: string;
  active: boolean;
  variations: { id: number; name: string }[];
}

/** What a spec needs set up before a partner can act, made through the admin API as an admin would. */
export class Fixtures {
  constructor(
    private readonly url: string,
    private readonly adminToken: string,
  ) {}

  private post(path: string, body: Body) {
    return request(this.url).post(path).set('Authorization', `Bearer ${this.adminToken}`).send(body);
  }

  async company(site = 'SK', name = unique('Bistro')): Promise<number> {
    const response = await this.post('/api/v2/admin/companies', { name, site });
    expect(response.status).toBe(201);
    return response.body.id as number;
  }

  /** A partner token of a new company on `site`. */
  async partner(site = 'SK'): Promise<Partner> {
    return this.partnerOf(await this.company(site), site);
  }

  /** Another partner token (another user) of an existing company. */
  async partnerOf(companyId: number, site = 'SK', userName = unique('partner')): Promise<Partner> {
    const response = await this.post('/api/v2/admin/tokens', {
      role: 'partner',
      user_name: userName,
      company_id: companyId,
    });
    expect(response.status).toBe(201);
    return { companyId, site, token: response.body.token, tokenId: response.body.id, userName };
  }

  /** A logistics token (no company). */
  async logisticsToken(userName = unique('courier')): Promise<string> {
    const response = await this.post('/api/v2/admin/tokens', { role: 'logistics', user_name: userName });
    expect(response.status).toBe(201);
    return response.body.token as string;
  }

  /** A partner of a new company on SK, and an order it placed of a new product. */
  async partnerWithOrder(): Promise<{ partner: Partner; productId: number; orderId: number }> {
    const partner = await this.partner();
    const productId = (await this.product()).id;
    const placed = await request(this.url)
      .post('/api/v2/order')
      .set('Authorization', `Bearer ${partner.token}`)
      .send(orderBody(productId));
    expect(placed.status).toBe(201);
    return { partner, productId, orderId: Number(placed.body.orders[0].order_id) };
  }

  async product(variations: string[] = [], name = unique('Terminal')): Promise<ProductView> {
    const response = await this.post('/api/v2/admin/products', {
      name,
      variations: variations.map((variation) => ({ name: variation })),
    });
    expect(response.status).toBe(201);
    return response.body as ProductView;
  }
}

/** A valid placement body: every value unique, the device password recognisable in logs. */
export function orderBody(productId: number, overrides: Body = {}): Body {
  const n = next();
  return {
    first_name: `Anna${n}`,
    last_name: `Novak${n}`,
    consignee: `Bistro Consignee ${n}`,
    email: `anna.${process.pid}.${n}@example.com`,
    phone: `+421900${String(n).padStart(6, '0')}`,
    zip: `8${String(n).padStart(4, '0')}`,
    city: `Bratislava ${n}`,
    street: `Hlavna ${n}`,
    house_number: `${n}A`,
    product_id: productId,
    login: `device-${n}`,
    password: `pw-SECRET-${process.pid}-${n}-zq`,
    order_type: 'REGULAR',
    merchant_id: `M-${n}`,
    ...overrides,
  };
}
