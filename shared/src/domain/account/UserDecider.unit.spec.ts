// Specifications of the dashboard user aggregate: one user per email, password changes replace the hash.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import type { UserEvent } from "./AccountEvent.ts"
import { UserDecider } from "./UserDecider.ts"

const given = DeciderSpecification.for(UserDecider)
const create = { _tag: "CreateUser", userId: "usr_1", email: "ann@example.org", passwordHash: "scrypt$a", now: 3 } as const
const created: UserEvent = { _tag: "UserCreated", v: 1, userId: "usr_1", email: "ann@example.org", passwordHash: "scrypt$a", at: 3 }
const change = { _tag: "ChangePassword", userId: "usr_1", email: "ann@example.org", passwordHash: "scrypt$b", now: 8 } as const

describe("UserDecider", () => {
  it("creates a user", () => given([]).when(create).then([created]))
  it("rejects a second user with the same email (the same id)", () => {
    const rejection = given([created]).when(create).thenRejects("UserAlreadyExists")
    expect(rejection).toMatchObject({ email: "ann@example.org" })
  })
  it("changes the password of an existing user", () =>
    given([created])
      .when(change)
      .then([{ _tag: "UserPasswordChanged", v: 1, userId: "usr_1", passwordHash: "scrypt$b", at: 8 }]))
  it("rejects changing the password of an unknown user", () => given([]).when(change).thenRejects("UserNotFound"))
  it("the latest password hash is the one in force", () => {
    const changed: UserEvent = { _tag: "UserPasswordChanged", v: 1, userId: "usr_1", passwordHash: "scrypt$b", at: 8 }
    const state = foldEvents(UserDecider, [created, changed])
    expect(state.passwordHash).toBe("scrypt$b")
    expect(state.user?.email).toBe("ann@example.org")
  })
})
