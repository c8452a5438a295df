import { strict as assert } from 'node:assert';
import { ByteBudget, KeyedMutex, Limiter } from '../../../../../src/core/protocols/fp/frames/limits';

const tick = (ms = 1) => new Promise((r) => setTimeout(r, ms));

describe('frame pipeline limits', () => {
  it('ByteBudget never grants more than its limit, in order', async () => {
    const budget = new ByteBudget(10);
    const order: number[] = [];
    await budget.acquire(6);
    const second = budget.acquire(6).then(() => order.push(2));
    const third = budget.acquire(1).then(() => order.push(3)); // fits, but FIFO keeps it behind #2
    await tick();
    assert.deepEqual(order, []);
    budget.release(6);
    await Promise.all([second, third]);
    assert.deepEqual(order, [2, 3]);
    assert.ok(budget.peakBytes <= 10);
    budget.release(6);
    budget.release(1);
    assert.equal(budget.inUse, 0);
  });

  it('ByteBudget.tryAcquire takes only what acquire() would grant at once', async () => {
    const budget = new ByteBudget(10);
    assert.equal(budget.tryAcquire(6), true);
    assert.equal(budget.tryAcquire(6), false);
    const waiter = budget.acquire(5);
    assert.equal(budget.tryAcquire(1), false, 'a queued waiter keeps its turn');
    budget.release(6);
    await waiter;
    assert.equal(budget.inUse, 5);
  });

  it('ByteBudget grants a request larger than the limit alone, so it cannot hang', async () => {
    const budget = new ByteBudget(10);
    await budget.acquire(4);
    let granted = false;
    const big = budget.acquire(25).then(() => {
      granted = true;
    });
    await tick();
    assert.equal(granted, false);
    budget.release(4);
    await big;
    assert.equal(budget.inUse, 25);
  });

  it('Limiter runs at most `size` tasks at once', async () => {
    const limiter = new Limiter(2);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 7 }, () =>
        limiter.run(async () => {
          running++;
          most = Math.max(most, running);
          await tick(3);
          running--;
        }),
      ),
    );
    assert.equal(most, 2);
  });

  it('Limiter.acquire hands a slot to the first waiter; giving it back twice frees it once', async () => {
    const limiter = new Limiter(1);
    const release = await limiter.acquire();
    const order: string[] = [];
    const a = limiter.acquire().then((r) => {
      order.push('a');
      return r;
    });
    const b = limiter.acquire().then((r) => {
      order.push('b');
      return r;
    });
    await tick(2);
    assert.deepEqual([limiter.running, limiter.queued, order], [1, 2, []]);
    release();
    release(); // a second call must not free b's slot too
    const releaseA = await a;
    await tick(2);
    assert.deepEqual([limiter.running, limiter.queued, order], [1, 1, ['a']]);
    releaseA();
    (await b)();
    assert.deepEqual([limiter.running, limiter.queued, order], [0, 0, ['a', 'b']]);
  });

  it('KeyedMutex serialises one key and lets others run', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const job = (key: string, name: string) =>
      mutex.run(key, async () => {
        log.push(`${name}+`);
        await tick(5);
        log.push(`${name}-`);
      });
    await Promise.all([job('a', 'a1'), job('a', 'a2'), job('b', 'b1')]);
    assert.ok(log.indexOf('a1-') < log.indexOf('a2+'), log.join(' '));
    assert.ok(log.indexOf('b1+') < log.indexOf('a1-'), 'b runs beside a');
  });
});
