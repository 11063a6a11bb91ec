// Specifications of the dashboard user aggregate: one user per email, password changes replace the hash, and the
// projects a user creates in the dashboard count against their limit.
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

  describe("projects created in the dashboard", () => {
    const claim = (projectId: string, defaultLimit: number | null = 2) =>
      ({ _tag: "ClaimProject", userId: "usr_1", email: "ann@example.org", projectId, defaultLimit, now: 9 }) as const
    const claimed = (projectId: string): UserEvent => ({ _tag: "UserProjectClaimed", v: 1, userId: "usr_1", projectId, at: 9 })

    it("counts each project once up to the default limit, then refuses with the limit", () => {
      given([created])
        .when(claim("prj_a"))
        .then([claimed("prj_a")])
      given([created, claimed("prj_a")])
        .when(claim("prj_a"))
        .then([])
      const refused = given([created, claimed("prj_a"), claimed("prj_b")])
        .when(claim("prj_c"))
        .thenRejects("ProjectLimitReached")
      expect(refused).toMatchObject({ email: "ann@example.org", limit: 2 })
      given([created])
        .when(claim("prj_a", null))
        .then([claimed("prj_a")])
    })

    it("a project that could not be created gives its count back", () => {
      const release = { _tag: "ReleaseProject", userId: "usr_1", projectId: "prj_b", now: 10 } as const
      const released: UserEvent = { _tag: "UserProjectReleased", v: 1, userId: "usr_1", projectId: "prj_b", at: 10 }
      given([created, claimed("prj_a"), claimed("prj_b")])
        .when(release)
        .then([released])
      given([created, claimed("prj_a"), claimed("prj_b"), released])
        .when(claim("prj_c"))
        .then([claimed("prj_c")])
      given([created]).when(release).then([])
    })

    it("the operator's limit for the user replaces the default: a count, or unlimited", () => {
      const limitOf = (limit: 1 | "unlimited" | "default"): UserEvent => ({
        _tag: "UserProjectLimitSet",
        v: 1,
        userId: "usr_1",
        limit,
        at: 5
      })
      given([created, limitOf(1), claimed("prj_a")])
        .when(claim("prj_b"))
        .thenRejects("ProjectLimitReached")
      given([created, limitOf("unlimited"), claimed("prj_a"), claimed("prj_b")])
        .when(claim("prj_c"))
        .then([claimed("prj_c")])
      given([created, limitOf(1), limitOf("default"), claimed("prj_a")])
        .when(claim("prj_b"))
        .then([claimed("prj_b")])
      given([]).when(claim("prj_a")).thenRejects("UserNotFound")
      given([]).when({ _tag: "SetProjectLimit", userId: "usr_1", email: "ann@example.org", limit: 3, now: 5 }).thenRejects("UserNotFound")
    })
  })
})
