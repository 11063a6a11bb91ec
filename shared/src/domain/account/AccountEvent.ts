// Events of projects (mds.account.project.<projectId>) and API keys (mds.account.key.<keyId>).
import { Schema } from "effect"

export const Scope = Schema.Literals(["media:resolve", "media:download"])
export type Scope = typeof Scope.Type
export const ALL_SCOPES: ReadonlyArray<Scope> = ["media:resolve", "media:download"]

export const KeyEnvironment = Schema.Literals(["live", "test"])
export type KeyEnvironment = typeof KeyEnvironment.Type

export const ProjectCreated = Schema.TaggedStruct("ProjectCreated", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  name: Schema.String,
  at: Schema.Number
})
export type ProjectCreated = typeof ProjectCreated.Type

export const KeyCreated = Schema.TaggedStruct("KeyCreated", {
  v: Schema.Literal(1),
  keyId: Schema.String,
  projectId: Schema.String,
  name: Schema.String,
  environment: KeyEnvironment,
  scopes: Schema.Array(Scope),
  /** Keyed hash of the secret (hex); the secret itself is never stored. */
  hash: Schema.String,
  /** The first characters of the secret, for people to recognise a key in a list. */
  prefix: Schema.String,
  at: Schema.Number
})
export type KeyCreated = typeof KeyCreated.Type

export const KeyRevoked = Schema.TaggedStruct("KeyRevoked", {
  v: Schema.Literal(1),
  keyId: Schema.String,
  projectId: Schema.String,
  at: Schema.Number
})
export type KeyRevoked = typeof KeyRevoked.Type

export const ProjectEvent = Schema.Union([ProjectCreated])
export type ProjectEvent = typeof ProjectEvent.Type

export const KeyEvent = Schema.Union([KeyCreated, KeyRevoked])
export type KeyEvent = typeof KeyEvent.Type
