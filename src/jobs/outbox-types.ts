// The outbox loop's contract (outbox.ts builds it), types only: deps.ts names it without loading the outbox.
export interface Outbox {
  start(): void
  /** Something was enqueued: look for due rows now instead of at the next timer. */
  wake(): void
  /** Stops taking rows and waits for the deliveries in flight. */
  stop(): Promise<void>
  readonly inFlight: number
  /** How many times it has read the table for due rows (a send that ends well with nothing waiting costs none). */
  readonly looks: number
}
