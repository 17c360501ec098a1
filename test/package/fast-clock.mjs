/**
 * A wall clock that runs fast, preloaded into every process a doc block starts (`NODE_OPTIONS=--import=…`, set by
 * doc-blocks.test.ts): `Date.now()` and `new Date()` run PETSTORE_DOCS_CLOCK_SPEED times faster than real time (1,000: a minute every 60 ms, a day every 86 s). An example
 * that counts requests in a rate window on the real clock then crosses a minute (and a day) turn while it runs and
 * fails; one that pins the mock's clock, as the docs tell users to, passes. Timers (setTimeout, performance.now) keep
 * real time, so test runners' timeouts and the mock's latencies are unchanged.
 *
 * Every process reads the same fast clock: virtual time is 2 s before the UTC midnight after the real moment
 * PETSTORE_DOCS_CLOCK_ORIGIN (ms, set once by the test), plus the real time since then times the speed. A server and
 * its client started at different moments agree on the time, as on a real machine.
 */
const speed = Number(process.env.PETSTORE_DOCS_CLOCK_SPEED ?? '1000')
if (Number.isFinite(speed) && speed > 0 && speed !== 1) {
  const RealDate = Date
  const realNow = RealDate.now
  const realStart = Number(process.env.PETSTORE_DOCS_CLOCK_ORIGIN ?? realNow())
  const DAY = 86_400_000
  const virtualStart = realStart - (realStart % DAY) + DAY - 2_000
  const now = () => Math.floor(virtualStart + (realNow() - realStart) * speed)
  const FastDate = new Proxy(RealDate, {
    // `new Date()` reads the fast clock; `new Date(x)` is unchanged.
    construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
    // `Date()` called as a function gives the current time as a string.
    apply: () => new RealDate(now()).toString(),
  })
  RealDate.now = now
  globalThis.Date = FastDate
}
