// Extension: the order in which one aggregator runs due subscription checks: at most one check per project at a time,
// the projects taken in turn, so one project's slow feeds hold up another project's check by one check at most.

export interface QueuedCheck {
  readonly projectId: string
  readonly subscriptionId: string
  readonly dueAt: number
}

/**
 * Checks waiting per project (first come, first run) and the projects in the order they get their turn: a project whose
 * check starts goes to the back. A subscription waits or runs once, whatever asks for it again meanwhile.
 */
export class FairCheckQueue {
  private readonly waiting = new Map<string, Array<QueuedCheck>>()
  /** Projects with waiting checks, in turn order. */
  private readonly turns: Array<string> = []
  private readonly running = new Map<string, QueuedCheck>()
  private readonly known = new Set<string>()
  private readonly capacity: number

  constructor(capacity: number) {
    this.capacity = capacity
  }

  /** Queues a check unless its subscription already waits or runs; false when it was already there. */
  submit(check: QueuedCheck): boolean {
    if (this.known.has(check.subscriptionId)) return false
    this.known.add(check.subscriptionId)
    const queue = this.waiting.get(check.projectId)
    if (queue === undefined) {
      this.waiting.set(check.projectId, [check])
      this.turns.push(check.projectId)
    } else queue.push(check)
    return true
  }

  /** The checks to start now: while fewer than `capacity` run, the next project in turn without a running check. */
  take(): ReadonlyArray<QueuedCheck> {
    const started: Array<QueuedCheck> = []
    let looked = 0
    while (this.running.size < this.capacity && looked < this.turns.length) {
      const projectId = this.turns[looked]!
      if (this.running.has(projectId)) {
        looked++
        continue
      }
      const queue = this.waiting.get(projectId)!
      const check = queue.shift()!
      this.turns.splice(looked, 1)
      if (queue.length === 0) this.waiting.delete(projectId)
      else this.turns.push(projectId)
      this.running.set(projectId, check)
      started.push(check)
    }
    return started
  }

  /** A check ended (run, skipped or failed): its project may run the next. */
  done(check: QueuedCheck): void {
    if (this.running.get(check.projectId) === check) this.running.delete(check.projectId)
    this.known.delete(check.subscriptionId)
  }

  /** Checks running and waiting, for the logs and the specs. */
  get size(): { readonly running: number; readonly waiting: number } {
    let waiting = 0
    for (const queue of this.waiting.values()) waiting += queue.length
    return { running: this.running.size, waiting }
  }
}
