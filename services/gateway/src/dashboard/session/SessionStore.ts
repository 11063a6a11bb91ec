// Port: server-side dashboard sessions, keyed by a hash of the session id (the id itself lives only in the cookie).
import type { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { Context, type Effect, type Option, Schema } from "effect"

export const Session = Schema.Struct({
  userId: Schema.String,
  email: Schema.String,
  /** Synchronizer token every dashboard form must echo back (CSRF). */
  csrfToken: Schema.String,
  createdAt: Schema.Number,
  expiresAt: Schema.Number
})
export type Session = typeof Session.Type

export class SessionStore extends Context.Service<
  SessionStore,
  {
    put(idHash: string, session: Session): Effect.Effect<void, ReadModelError>
    /** The stored session, expired or not: the caller compares expiresAt with its clock. */
    get(idHash: string): Effect.Effect<Option.Option<Session>, ReadModelError>
    remove(idHash: string): Effect.Effect<void, ReadModelError>
  }
>()("mds/gateway/dashboard/SessionStore") {}
