// Preloaded (`NODE_OPTIONS=--import=…/clock-offset.ts`, CLOCK_OFFSET_MS) into a service process
// whose wall clock must be off, as a machine's without NTP is: Date says another time; the
// monotonic clocks (timers, performance.now) run as they do, as they would on that machine.
const offset = Number(process.env.CLOCK_OFFSET_MS ?? 0);
const RealDate = Date;
class OffsetDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...(args as [string]));
  }
  static override now() {
    return RealDate.now() + offset;
  }
}
globalThis.Date = OffsetDate as DateConstructor;
