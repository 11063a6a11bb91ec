// A NatsClient whose consumers' messages can be held after the server delivered them: a stalled delivery (a busy or
// stuck client, a consumer whose server stopped pushing) driven at a chosen step, with the server itself untouched.
import type { ConsumerMessages, JetStreamClient } from "@nats-io/jetstream"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Context, Effect, Layer } from "effect"

interface Gate {
  held: boolean
  waiters: Array<() => void>
}

export class HeldDelivery extends Context.Service<
  HeldDelivery,
  {
    /** Holds every consumer's messages, those created later included, until `release`. */
    hold(): void
    /** Holds the messages of the consumers that exist now only: a consumer created afterwards delivers. */
    holdCurrent(): void
    release(): void
    /** Consumers whose messages were iterated so far (to wait until a follower or stream has started). */
    consumers(): number
  }
>()("mds/test/HeldDelivery") {}

const pass = (gate: Gate) => (gate.held ? new Promise<void>((resolve) => gate.waiters.push(resolve)) : Promise.resolve())

const open = (gate: Gate) => {
  gate.held = false
  for (const resume of gate.waiters.splice(0)) resume()
}

const bound = (target: object, property: PropertyKey) => {
  const value: unknown = Reflect.get(target, property)
  return typeof value === "function" ? value.bind(target) : value
}

/**
 * The messages as the server delivers them, each handed on only when its gate is open. A closed iterator ends without
 * handing on what it held (as a consumer dropped with its server would).
 */
const gated = (inner: ConsumerMessages, gate: Gate): ConsumerMessages => {
  const source = inner[Symbol.asyncIterator]()
  let closed = false
  const end = { done: true as const, value: undefined }
  const close = () => {
    closed = true
    for (const resume of gate.waiters.splice(0)) resume()
  }
  const iterator: AsyncIterator<unknown> = {
    next: async () => {
      const result = await source.next()
      await pass(gate)
      return closed ? end : result
    },
    return: async () => {
      close()
      return (await source.return?.()) ?? end
    }
  }
  return new Proxy(inner, {
    get: (target, property) => {
      if (property === Symbol.asyncIterator) return () => iterator
      if (property === "close")
        return () => {
          close()
          return target.close()
        }
      return bound(target, property)
    }
  })
}

/** HeldDelivery and the NatsClient it controls, over the NatsClient below. */
export const HeldDeliveryLayer = Layer.effectContext(
  Effect.gen(function* () {
    const inner = yield* NatsClient
    let holdAll = false
    const gates: Array<Gate> = []
    const control = HeldDelivery.of({
      hold: () => {
        holdAll = true
        for (const gate of gates) gate.held = true
      },
      holdCurrent: () => {
        for (const gate of gates) gate.held = true
      },
      release: () => {
        holdAll = false
        for (const gate of gates) open(gate)
      },
      consumers: () => gates.length
    })
    const consumers = new Proxy(inner.js.consumers, {
      get: (target, property) =>
        property === "get"
          ? async (...args: Parameters<JetStreamClient["consumers"]["get"]>) => {
              const consumer = await target.get(...args)
              return new Proxy(consumer, {
                get: (c, p) =>
                  p === "consume"
                    ? async (...options: Parameters<typeof consumer.consume>) => {
                        const gate: Gate = { held: holdAll, waiters: [] }
                        gates.push(gate)
                        return gated(await c.consume(...options), gate)
                      }
                    : bound(c, p)
              })
            }
          : bound(target, property)
    })
    const js = new Proxy(inner.js, { get: (target, property) => (property === "consumers" ? consumers : bound(target, property)) })
    return Context.make(HeldDelivery, control).pipe(Context.add(NatsClient, NatsClient.of({ ...inner, js })))
  })
)
