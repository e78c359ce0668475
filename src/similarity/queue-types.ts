// The similarity queue's contract (queue.ts builds it), types only: deps.ts names it without loading the queue.
export interface SimilarityQueue {
  start(): void
  /** A report was queued: look now. */
  wake(): void
  /** Stops the running analysis (its report goes back to the queue) and waits for the loop. */
  stop(): Promise<void>
}
