// The API key aggregate: created with its hash and scopes, revoked once and for good.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { ApiKeyAlreadyExists, ApiKeyNotFound } from "../DomainErrors.ts"
import type { KeyCreated, KeyEnvironment, KeyEvent, Scope } from "./AccountEvent.ts"

export interface KeyState {
  readonly key: KeyCreated | null
  readonly revokedAt: number | null
}

export type KeyCommand =
  | {
      readonly _tag: "CreateKey"
      readonly keyId: string
      readonly projectId: string
      readonly name: string
      readonly environment: KeyEnvironment
      readonly scopes: ReadonlyArray<Scope>
      readonly hash: string
      readonly prefix: string
      readonly now: number
    }
  | {
      readonly _tag: "RevokeKey"
      readonly keyId: string
      /** The project the caller acts in; a key of another project is not found. Null for the operator (admin CLI). */
      readonly projectId: string | null
      readonly now: number
    }

export type KeyRejection = ApiKeyAlreadyExists | ApiKeyNotFound

export const evolveKey = (state: KeyState, event: KeyEvent): KeyState => {
  switch (event._tag) {
    case "KeyCreated":
      return { key: event, revokedAt: null }
    case "KeyRevoked":
      return { ...state, revokedAt: state.revokedAt ?? event.at }
  }
}

export const decideKey = (command: KeyCommand, state: KeyState): Result.Result<ReadonlyArray<KeyEvent>, KeyRejection> => {
  switch (command._tag) {
    case "CreateKey":
      if (state.key !== null) return Result.fail(new ApiKeyAlreadyExists({ keyId: command.keyId }))
      return Result.succeed([
        {
          _tag: "KeyCreated",
          v: 1,
          keyId: command.keyId,
          projectId: command.projectId,
          name: command.name,
          environment: command.environment,
          scopes: [...new Set(command.scopes)],
          hash: command.hash,
          prefix: command.prefix,
          at: command.now
        }
      ])
    case "RevokeKey":
      if (state.key === null) return Result.fail(new ApiKeyNotFound({ keyId: command.keyId }))
      if (command.projectId !== null && command.projectId !== state.key.projectId) {
        return Result.fail(new ApiKeyNotFound({ keyId: command.keyId }))
      }
      if (state.revokedAt !== null) return Result.succeed([])
      return Result.succeed([{ _tag: "KeyRevoked", v: 1, keyId: command.keyId, projectId: state.key.projectId, at: command.now }])
  }
}

export const KeyDecider: Decider<KeyCommand, KeyEvent, KeyState, KeyRejection> = {
  initialState: () => ({ key: null, revokedAt: null }),
  evolve: evolveKey,
  decide: decideKey
}
