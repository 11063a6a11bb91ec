// The lifecycle model's processes: the service's own steps (Effect programs) run as fibers on a scheduler the model
// drives, each stopped before every write it makes, so the model chooses which write happens next, fails one as NATS
// would, or stops a process there for good (a crash: its fiber is never resumed, nothing of it runs again).
import { Clock, Context, Effect, type Exit, type Fiber, References, type Scheduler } from "effect"
import { EventStoreError } from "@mds/shared/eventstore/EventStore"
import type { ModelClock } from "./ModelClock.ts"

/** A process as the model knows it: which actor it is and the project it acts for ("" for none). */
export interface ProcessInfo {
  readonly pid: number
  readonly label: string
  readonly projectId: string
}

/** The process the running fiber belongs to; null outside any (the model's own setup writes, never gated). */
export const CurrentProcess = Context.Reference<ProcessInfo | null>("mds/model/CurrentProcess", { defaultValue: () => null })

/** A write a process is stopped before: the model lets it happen, fails it, or leaves it (the process waits). */
export interface Gate {
  readonly id: number
  readonly process: ProcessInfo
  readonly subject: string
}

interface OpenGate extends Gate {
  readonly resume: (effect: Effect.Effect<void, EventStoreError>) => void
}

type Status = "running" | "exited" | "crashed"

/** Runs every task the fibers schedule synchronously, in order, when asked: no timers, no other thread of control. */
class ModelScheduler implements Scheduler.Scheduler {
  readonly executionMode = "sync" as const
  private readonly tasks: Array<() => void> = []
  shouldYield(): boolean {
    return false
  }
  makeDispatcher(): Scheduler.SchedulerDispatcher {
    return { scheduleTask: (task) => this.tasks.push(task), flush: () => this.drain() }
  }
  drain(): void {
    let ran = 0
    while (this.tasks.length > 0) {
      if (++ran > 1_000_000) throw new Error("model scheduler: a process never stops (a loop without a write or a sleep?)")
      this.tasks.shift()?.()
    }
  }
}

export class Processes {
  readonly scheduler = new ModelScheduler()
  private nextPid = 1
  private nextGate = 1
  private readonly gates = new Map<number, OpenGate>()
  private readonly statuses = new Map<number, { info: ProcessInfo; status: Status; exit?: Exit.Exit<unknown, unknown> }>()

  private readonly clock: ModelClock

  constructor(clock: ModelClock) {
    this.clock = clock
  }

  /** The store's hook before each append: a write outside any process happens at once. */
  readonly beforeAppend = (subject: string): Effect.Effect<void, EventStoreError> =>
    Effect.flatMap(Effect.service(CurrentProcess), (process) =>
      process === null
        ? Effect.void
        : Effect.callback<void, EventStoreError>((resume) => {
            const id = this.nextGate++
            this.gates.set(id, { id, process, subject, resume })
          })
    )

  /** Starts a process and runs it up to its first write (or its end). */
  spawn<A, E>(label: string, projectId: string, effect: Effect.Effect<A, E>, onExit?: (exit: Exit.Exit<A, E>) => void): ProcessInfo {
    const info: ProcessInfo = { pid: this.nextPid++, label, projectId }
    const entry: { info: ProcessInfo; status: Status; exit?: Exit.Exit<unknown, unknown> } = { info, status: "running" }
    this.statuses.set(info.pid, entry)
    const fiber: Fiber.Fiber<A, E> = Effect.runFork(
      effect.pipe(
        Effect.provideService(CurrentProcess, info),
        Effect.provideService(Clock.Clock, this.clock.ownedBy(info.pid)),
        // The steps log as they do in the services; the model's output is its trace.
        Effect.provideService(References.MinimumLogLevel, "None")
      ),
      { scheduler: this.scheduler }
    )
    fiber.addObserver((exit) => {
      if (entry.status !== "running") return
      entry.status = "exited"
      entry.exit = exit
      onExit?.(exit)
    })
    this.scheduler.drain()
    return info
  }

  /** Writes waiting for the model's say, oldest first. */
  pendingGates(): ReadonlyArray<Gate> {
    return [...this.gates.values()]
  }

  /** Lets the gate's write happen (or fails it as NATS would) and runs its process to its next write or its end. */
  advance(gateId: number, outcome: "write" | "fail" = "write"): void {
    const gate = this.gates.get(gateId)
    if (gate === undefined) return
    this.gates.delete(gateId)
    gate.resume(
      outcome === "write"
        ? Effect.void
        : Effect.fail(new EventStoreError({ operation: `append ${gate.subject}`, message: "model: NATS refused the write" }))
    )
    this.scheduler.drain()
  }

  /** Stops a process for good: its waiting writes never happen, nothing of it runs again (no finalizer either). */
  crash(pid: number): void {
    const entry = this.statuses.get(pid)
    if (entry === undefined || entry.status === "crashed") return
    entry.status = "crashed"
    for (const [id, gate] of this.gates) if (gate.process.pid === pid) this.gates.delete(id)
    this.clock.dropSleepers(pid)
  }

  /** Processes that a crash would stop: running, or with a background fiber still waiting to write or to wake. */
  crashable(): ReadonlyArray<ProcessInfo> {
    const pending = new Set([...this.gates.values()].map((gate) => gate.process.pid))
    return [...this.statuses.values()]
      .filter(
        (entry) =>
          entry.status === "running" ||
          (entry.status === "exited" && (pending.has(entry.info.pid) || this.clock.hasSleeper(entry.info.pid)))
      )
      .map((entry) => entry.info)
  }

  /** Moves the clock and runs whatever woke (sleepers whose time came). */
  advanceClock(ms: number): void {
    this.clock.advance(ms)
    this.scheduler.drain()
  }

  /**
   * Whether any process is in the middle of a step: running, waiting at a write, or with a fiber it forked (a
   * background step) waiting at a write or for the clock. A crashed process is never busy.
   */
  busy(): boolean {
    return [...this.statuses.keys()].some((pid) => this.isBusy(pid))
  }

  /** Whether the process is in the middle of a step (see `busy`). */
  isBusy(pid: number): boolean {
    const status = this.statuses.get(pid)?.status
    if (status === "running") return true
    if (status !== "exited") return false
    for (const gate of this.gates.values()) if (gate.process.pid === pid) return true
    return this.clock.hasSleeper(pid)
  }

  /** Processes that have not ended nor crashed. */
  running(): ReadonlyArray<ProcessInfo> {
    return [...this.statuses.values()].filter((entry) => entry.status === "running").map((entry) => entry.info)
  }

  statusOf(pid: number): Status | undefined {
    return this.statuses.get(pid)?.status
  }

  exitOf(pid: number): Exit.Exit<unknown, unknown> | undefined {
    return this.statuses.get(pid)?.exit
  }
}
