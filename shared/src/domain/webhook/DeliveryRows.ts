// A delivery log (one entry per attempt) as one row per delivery: its latest attempt and how many attempts it took.
// Pure and generic over the attempt's shape, so the dashboard (log events) and the mds CLI (/v1 answers) group alike.

export interface DeliveryRow<A> {
  readonly latest: A
  readonly attempts: number
}

/** `log` oldest first; the rows come most recently attempted first. A redelivery's attempts count on. */
export const deliveryRows = <A>(log: ReadonlyArray<A>, deliveryIdOf: (attempt: A) => string): ReadonlyArray<DeliveryRow<A>> => {
  const rows = new Map<string, DeliveryRow<A>>()
  for (const attempt of log) {
    const id = deliveryIdOf(attempt)
    const known = rows.get(id)
    rows.delete(id)
    rows.set(id, { latest: attempt, attempts: (known?.attempts ?? 0) + 1 })
  }
  return [...rows.values()].reverse()
}
