// The dashboard user aggregate: created once per email (the id derives from it), password changed any time.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { UserAlreadyExists, UserNotFound } from "../DomainErrors.ts"
import type { UserCreated, UserEvent } from "./AccountEvent.ts"

export interface UserState {
  readonly user: UserCreated | null
  readonly passwordHash: string | null
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

export type UserRejection = UserAlreadyExists | UserNotFound

export const evolveUser = (state: UserState, event: UserEvent): UserState => {
  switch (event._tag) {
    case "UserCreated":
      return { user: event, passwordHash: event.passwordHash }
    case "UserPasswordChanged":
      return { ...state, passwordHash: event.passwordHash }
  }
}

export const decideUser = (command: UserCommand, state: UserState): Result.Result<ReadonlyArray<UserEvent>, UserRejection> => {
  switch (command._tag) {
    case "CreateUser":
      if (state.user !== null) return Result.fail(new UserAlreadyExists({ email: command.email }))
      return Result.succeed([
        {
          _tag: "UserCreated",
          v: 1,
          userId: command.userId,
          email: command.email,
          passwordHash: command.passwordHash,
          at: command.now
        }
      ])
    case "ChangePassword":
      if (state.user === null) return Result.fail(new UserNotFound({ email: command.email }))
      return Result.succeed([
        {
          _tag: "UserPasswordChanged",
          v: 1,
          userId: command.userId,
          passwordHash: command.passwordHash,
          at: command.now
        }
      ])
  }
}

export const UserDecider: Decider<UserCommand, UserEvent, UserState, UserRejection> = {
  initialState: () => ({ user: null, passwordHash: null }),
  evolve: evolveUser,
  decide: decideUser
}
