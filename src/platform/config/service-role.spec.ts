import { dutiesOf } from './service-role';

describe('SERVICE_ROLE, and the deprecated WEBHOOK_DISPATCHER it folds in', () => {
  it.each([
    ['all', undefined, { api: true, dispatcher: true, jobs: true }],
    ['api', undefined, { api: true, dispatcher: false, jobs: false }],
    ['worker', undefined, { api: false, dispatcher: true, jobs: true }],
    // An existing deployment's WEBHOOK_DISPATCHER keeps its meaning: false turns the dispatcher off, nothing else.
    ['all', false, { api: true, dispatcher: false, jobs: true }],
    ['all', true, { api: true, dispatcher: true, jobs: true }],
  ] as const)('%s with WEBHOOK_DISPATCHER=%s', (role, dispatcher, duties) => {
    expect(dutiesOf({ SERVICE_ROLE: role, WEBHOOK_DISPATCHER: dispatcher })).toEqual(duties);
  });
});
