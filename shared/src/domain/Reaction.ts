// The pure half of every reactor (process manager): from the state read after a wake-up, the commands to carry out.
/**
 * What woke a reactor, and when. A reaction is level-triggered: it decides from the whole state read after the
 * wake-up, never from which event it was, so wake-ups in any order (or a lost one, made up by a reconcile) lead to
 * the same commands.
 */
export interface Wake<Tag extends string> {
  readonly _tag: Tag
  readonly now: number
}

/**
 * `react(state, trigger) → commands`: pure (no I/O, no clock: time arrives in the trigger). Each command is safe to
 * repeat, because what carries it out appends with ids fixed by what it acts on and the deciders turn a repeat into
 * nothing; so a round cut off half-way is simply run again.
 */
export type React<State, Trigger, Command> = (state: State, trigger: Trigger) => ReadonlyArray<Command>
