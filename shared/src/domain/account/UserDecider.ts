// The dashboard user aggregate: created once per email (the id derives from it), password changed any time, and the
// projects they create in the dashboard counted against their limit.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { ProjectLimitReached, UserAlreadyExists, UserNotFound } from "../DomainErrors.ts"
import type { QuotaSetting, UserCreated, UserEvent } from "./AccountEvent.ts"

export interface UserState {
  readonly user: UserCreated | null
  readonly passwordHash: string | null
  /** The projects the user created in the dashboard (claimed before each creation), in order. */
  readonly projects: ReadonlyArray<string>
  /** How many they may create: their own limit, or the server's default (DASHBOARD_PROJECTS_PER_USER). */
  readonly projectLimit: QuotaSetting
}

export type UserCommand =
  | {
      readonly _tag: "CreateUser"
      readonly userId: string
      readonly email: string
      readonly passwordHash: string
      readonly now: number
    }
  | {
      readonly _tag: "ChangePassword"
      readonly userId: string
      readonly email: string
      readonly passwordHash: string
      readonly now: number
    }
  | {
      /** Counts a project the user is about to create against their limit; `defaultLimit` null: no default limit. */
      readonly _tag: "ClaimProject"
      readonly userId: string
      readonly email: string
      readonly projectId: string
      readonly defaultLimit: number | null
      readonly now: number
    }
  | { readonly _tag: "ReleaseProject"; readonly userId: string; readonly projectId: string; readonly now: number }
  | {
      readonly _tag: "SetProjectLimit"
      readonly userId: string
      readonly email: string
      readonly limit: QuotaSetting
      readonly now: number
    }

export type UserRejection = UserAlreadyExists | UserNotFound | ProjectLimitReached

export const initialUserState = (): UserState => ({ user: null, passwordHash: null, projects: [], projectLimit: "default" })

export const evolveUser = (state: UserState, event: UserEvent): UserState => {
  switch (event._tag) {
    case "UserCreated":
      return { ...state, user: event, passwordHash: event.passwordHash }
    case "UserPasswordChanged":
      return { ...state, passwordHash: event.passwordHash }
    case "UserProjectClaimed":
      return state.projects.includes(event.projectId) ? state : { ...state, projects: [...state.projects, event.projectId] }
    case "UserProjectReleased":
      return { ...state, projects: state.projects.filter((projectId) => projectId !== event.projectId) }
    case "UserProjectLimitSet":
      return { ...state, projectLimit: event.limit }
  }
}

/** The number of projects the user may create; null: no limit. */
export const projectLimitOf = (state: UserState, defaultLimit: number | null): number | null =>
  state.projectLimit === "default" ? defaultLimit : state.projectLimit === "unlimited" ? null : state.projectLimit

const emit = (...events: ReadonlyArray<UserEvent>) => Result.succeed(events)

export const decideUser = (command: UserCommand, state: UserState): Result.Result<ReadonlyArray<UserEvent>, UserRejection> => {
  switch (command._tag) {
    case "CreateUser":
      if (state.user !== null) return Result.fail(new UserAlreadyExists({ email: command.email }))
      return emit({
        _tag: "UserCreated",
        v: 1,
        userId: command.userId,
        email: command.email,
        passwordHash: command.passwordHash,
        at: command.now
      })
    case "ChangePassword":
      if (state.user === null) return Result.fail(new UserNotFound({ email: command.email }))
      return emit({ _tag: "UserPasswordChanged", v: 1, userId: command.userId, passwordHash: command.passwordHash, at: command.now })
    case "ClaimProject": {
      if (state.user === null) return Result.fail(new UserNotFound({ email: command.email }))
      if (state.projects.includes(command.projectId)) return emit()
      const limit = projectLimitOf(state, command.defaultLimit)
      if (limit !== null && state.projects.length >= limit) return Result.fail(new ProjectLimitReached({ email: command.email, limit }))
      return emit({ _tag: "UserProjectClaimed", v: 1, userId: command.userId, projectId: command.projectId, at: command.now })
    }
    case "ReleaseProject":
      return state.projects.includes(command.projectId)
        ? emit({ _tag: "UserProjectReleased", v: 1, userId: command.userId, projectId: command.projectId, at: command.now })
        : emit()
    case "SetProjectLimit":
      if (state.user === null) return Result.fail(new UserNotFound({ email: command.email }))
      return emit({ _tag: "UserProjectLimitSet", v: 1, userId: command.userId, limit: command.limit, at: command.now })
  }
}

export const UserDecider: Decider<UserCommand, UserEvent, UserState, UserRejection> = {
  initialState: initialUserState,
  evolve: evolveUser,
  decide: decideUser
}
