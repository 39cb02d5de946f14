import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { profileLayers } from './profile-layers';

/**
 * Where a CPU profile's samples went, by layer: `npx tsx bench/profile-summary.ts [file.cpuprofile]` (default:
 * the newest profile in bench/results/profiles). Self time only; start-up is left out (profile-layers.ts).
 */
function newestProfile(): string {
  const dir = join(__dirname, 'results', 'profiles');
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  return join(dir, files.sort((a, b) => statSync(join(dir, b)).mtimeMs - statSync(join(dir, a)).mtimeMs)[0]);
}

const file = process.argv[2] ?? newestProfile();
const { busyMs, layers } = profileLayers(file);
console.log(`${file}\n${Math.round(busyMs)} ms busy (idle excluded)`);
for (const { layer, percent } of layers) console.log(`${percent.toFixed(1).padStart(5)} %  ${layer}`);
