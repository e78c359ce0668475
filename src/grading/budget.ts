// The time bound of judging, shared by the built-in checkers and the default validator (a file of its own:
// checker-schema.ts reads the validator's flags, and checkers.ts its schema's types, so neither may hold it).
/** A judge ran past its time bound (grading.judge_time_sec): the test is IE, not a verdict on the program. */
export class JudgeTimeout extends Error {}

/** A deadline, looked at every few thousand steps (Date.now() is not free). */
export class Budget {
  private steps = 0
  constructor(readonly deadline: number) {}
  static ms(ms: number) {
    return new Budget(Date.now() + ms)
  }
  tick(n = 1) {
    this.steps += n
    if (this.steps < 4096) return
    this.steps = 0
    if (Date.now() > this.deadline) throw new JudgeTimeout('judging ran past its time bound')
  }
}
