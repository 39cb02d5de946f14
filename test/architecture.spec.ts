import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

/** The rules of .dependency-cruiser.cjs that a cruise of `cwd`'s src/ breaks, as "rule: from → to". */
function violations(cwd: string): string[] {
  const run = spawnSync(DEPCRUISE, ['src', '--config', '.dependency-cruiser.cjs', '-T', 'json'], {
    cwd,
    encoding: 'utf8',
  });
  const result = JSON.parse(run.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return result.summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} → ${to}`);
}

describe('the architecture rules (npm run lint:deps)', () => {
  it('hold for src/ as it is', () => {
    expect(violations(ROOT)).toEqual([]);
  });

  it('refuse a cycle, a higher floor (a module FLOORS does not name above the features), a sibling module, another module’s repository or entity, a fat controller, and a domain/ that imports another layer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-architecture-'));
    try {
      copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
      const files: Record<string, string> = {
        'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true } }),
        'src/kernel/rule.ts':
          "import { place } from '../orders/application/place';\nexport const rule = place;\n",
        'src/orders/application/place.ts': 'export const place = 1;\n',
        'src/orders/orders.repository.ts': 'export class OrdersRepository {}\n',
        'src/orders/order.entity.ts': 'export class Order {}\n',
        'src/orders/http/orders.controller.ts':
          "import { OrdersRepository } from '../orders.repository';\nexport const controller = OrdersRepository;\n",
        'src/comments/comments.service.ts':
          "import { OrdersRepository } from '../orders/orders.repository';\nimport { Order } from '../orders/order.entity';\nexport const uses = [OrdersRepository, Order];\n",
        'src/webhooks/dispatch.ts':
          "import { place } from '../orders/application/place';\nexport const dispatch = place;\n",
        'src/tokens/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
        // A folder FLOORS does not name stands above every feature and below the CLI.
        'src/invoices/invoices.service.ts':
          "import { place } from '../orders/application/place';\nimport { run } from '../cli/run';\nexport const invoice = [place, run];\n",
        'src/cli/run.ts':
          "import { invoice } from '../invoices/invoices.service';\nexport const run = () => invoice;\n",
        'src/comments/comment.ts':
          "import { invoice } from '../invoices/invoices.service';\nexport const comment = invoice;\n",
        'src/tokens/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
        'src/orders/domain/fields.ts':
          "import { PlaceOrderDto } from '../http/dto/place-order.dto';\nimport { view } from '../persistence/view';\nimport { place } from '../application/place';\nexport const fields = [PlaceOrderDto, view, place];\n",
        'src/orders/http/dto/place-order.dto.ts': 'export class PlaceOrderDto {}\n',
        'src/orders/persistence/view.ts':
          "import { rule } from '../domain/rule';\nexport const view = rule;\n",
        'src/orders/domain/rule.ts': 'export const rule = 1;\n',
      };
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), text);
      }
      expect(violations(dir)).toEqual(
        expect.arrayContaining([
          'floor-kernel: src/kernel/rule.ts → src/orders/application/place.ts',
          'floor-webhooks: src/webhooks/dispatch.ts → src/orders/application/place.ts',
          'no-foreign-repository: src/comments/comments.service.ts → src/orders/orders.repository.ts',
          'no-foreign-entity: src/comments/comments.service.ts → src/orders/order.entity.ts',
          'controllers-stay-thin: src/orders/http/orders.controller.ts → src/orders/orders.repository.ts',
          'no-circular: src/tokens/a.ts → src/tokens/b.ts',
          'floor-new-module: src/invoices/invoices.service.ts → src/cli/run.ts',
          'floor-comments: src/comments/comment.ts → src/invoices/invoices.service.ts',
          'domain-stays-pure: src/orders/domain/fields.ts → src/orders/http/dto/place-order.dto.ts',
          'domain-stays-pure: src/orders/domain/fields.ts → src/orders/persistence/view.ts',
          'domain-stays-pure: src/orders/domain/fields.ts → src/orders/application/place.ts',
        ]),
      );
      expect(violations(dir)).not.toEqual(
        expect.arrayContaining([
          'floor-new-module: src/invoices/invoices.service.ts → src/orders/application/place.ts',
        ]),
      );
      expect(violations(dir)).not.toContain(
        'domain-stays-pure: src/orders/persistence/view.ts → src/orders/domain/rule.ts',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
