// The lifecycle model's clock: time moves only when the model says so, and sleepers wake when it passes their time.
import type { Clock } from "effect"
import { Duration, Effect } from "effect"

interface Sleeper {
  readonly at: number
  readonly order: number
  /** The process whose fiber sleeps (0: none of the model's). */
  readonly owner: number
  readonly wake: () => void
}

export class ModelClock implements Clock.Clock {
  private nowMs: number
  private sleepers: Array<Sleeper> = []
  private order = 0

  constructor(startMs: number) {
    this.nowMs = startMs
  }

  get now(): number {
    return this.nowMs
  }

  currentTimeMillisUnsafe(): number {
    return this.nowMs
  }
  readonly currentTimeMillis = Effect.sync(() => this.nowMs)
  currentTimeNanosUnsafe(): bigint {
    return BigInt(this.nowMs) * 1_000_000n
  }
  readonly currentTimeNanos = Effect.sync(() => this.currentTimeNanosUnsafe())
  monotonicTimeNanosUnsafe(): bigint {
    return this.currentTimeNanosUnsafe()
  }
  readonly monotonicTimeNanos = Effect.sync(() => this.currentTimeNanosUnsafe())

  sleep(duration: Duration.Duration, owner = 0): Effect.Effect<void> {
    // A sleep that is over at once (a retry without delay) only yields: nothing waits for the clock to move.
    if (Duration.toMillis(duration) <= 0) return Effect.yieldNow
    return Effect.callback<void>((resume) => {
      const sleeper: Sleeper = { at: this.nowMs + Duration.toMillis(duration), order: this.order++, owner, wake: () => resume(Effect.void) }
      this.sleepers.push(sleeper)
      return Effect.sync(() => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper)
      })
    })
  }

  /** The same clock, its sleepers marked as the process's (a fiber it forked sleeps as the process too). */
  ownedBy(pid: number): Clock.Clock {
    return {
      currentTimeMillisUnsafe: () => this.currentTimeMillisUnsafe(),
      currentTimeMillis: this.currentTimeMillis,
      currentTimeNanosUnsafe: () => this.currentTimeNanosUnsafe(),
      currentTimeNanos: this.currentTimeNanos,
      monotonicTimeNanosUnsafe: () => this.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: this.monotonicTimeNanos,
      sleep: (duration) => this.sleep(duration, pid)
    }
  }

  /** A crashed process's sleepers never wake. */
  dropSleepers(pid: number): void {
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.owner !== pid)
  }

  /** Whether a fiber of the process sleeps, waiting for the clock. */
  hasSleeper(pid: number): boolean {
    return this.sleepers.some((sleeper) => sleeper.owner === pid)
  }

  /** Moves time forward by `ms`, waking every sleeper whose time came, earliest first (the caller runs what woke). */
  advance(ms: number): void {
    this.nowMs += Math.max(0, ms)
    const due = this.sleepers.filter((sleeper) => sleeper.at <= this.nowMs).sort((a, b) => a.at - b.at || a.order - b.order)
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.at > this.nowMs)
    for (const sleeper of due) sleeper.wake()
  }
}
