import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { lazyRequestLogger } from '../../src/http/request-logger.ts';
import { captureLog } from '../support/log-capture.ts';

test('the request logger makes its child only for a line at an enabled level, with the bindings', () => {
  const written = captureLog();
  const parent = pino({ level: 'warn' }, written.stream);
  let children = 0;
  const counting = Object.assign(Object.create(parent), {
    child: (...args: Parameters<typeof parent.child>) => {
      children++;
      return parent.child(...args);
    },
  }) as typeof parent;
  const log = lazyRequestLogger(counting, { reqId: 'r-1' }, {});

  log.info({ detail: 1 }, 'not written at warn');
  log.debug('nor this');
  assert.equal(children, 0);
  assert.equal(log.level, 'warn');

  log.warn({ detail: 2 }, 'written');
  log.error('and this');
  assert.equal(children, 1, 'one child, made once');
  assert.deepEqual(
    written.lines().map(({ reqId, msg, detail }) => ({ reqId, msg, detail })),
    [
      { reqId: 'r-1', msg: 'written', detail: 2 },
      { reqId: 'r-1', msg: 'and this', detail: undefined },
    ],
  );

  // A child of the request logger carries both sets of bindings.
  log.child({ step: 'lookup' }).warn('nested');
  const last = written.lines().at(-1);
  assert.deepEqual({ reqId: last?.reqId, step: last?.step }, { reqId: 'r-1', step: 'lookup' });
});
