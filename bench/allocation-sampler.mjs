// Preloaded into the app by bench/allocations.ts (`node --import`): each SIGUSR2 starts, then stops, V8's
// sampling heap profiler, counting objects the garbage collector has since freed too, so the profile is
// what was allocated while it ran, not what is still alive. The profile goes to ALLOCATION_PROFILE.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
let sampling = false;
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return;
  }
  session.post('HeapProfiler.stopSampling', (error, result) => {
    writeFileSync(process.env.ALLOCATION_PROFILE, error ? '' : JSON.stringify(result.profile));
  });
});
