// One event stream's outgoing events, written one at a time and each write awaited, so a reader that
// does not keep up makes events wait here rather than in buffers nobody counts. What waits is counted;
// past a bound the reader is too slow (or not reading at all) and the stream is closed: its memory goes
// at once, and a browser that was merely slow reconnects and starts again from the whole document.

/** The part of Hono's SSE stream this needs. */
export interface SseStream {
  write(chunk: string): Promise<unknown>
  abort(): void
}

export interface RoomEvent {
  /** The SSE event name: state | doc | awareness | run | running | status | presence | signed-out */
  type: string
  data: unknown
}

export class EventQueue {
  private queue: string[] = []
  private stream: SseStream | null = null
  private writing = false
  private ended = false
  private drainWaiters: (() => void)[] = []
  private closeWaiters: (() => void)[] = []
  /** Bytes queued or being written. */
  bytes = 0

  constructor(
    private readonly maxBytes: number,
    private readonly onClose: (why: 'slow' | 'closed') => void = () => {}
  ) {}

  get closed(): boolean {
    return this.ended
  }

  /** Queues an event (never blocks); closes the stream when the reader is too far behind. */
  send(e: RoomEvent): void {
    this.sendRaw(`event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`)
  }

  /** An SSE comment (the heartbeat). */
  comment(text: string): void {
    this.sendRaw(`: ${text}\n\n`)
  }

  private sendRaw(chunk: string) {
    if (this.ended) return
    this.bytes += Buffer.byteLength(chunk)
    if (this.bytes > this.maxBytes) return this.close('slow')
    this.queue.push(chunk)
    void this.pump()
  }

  /** The stream events go to, once it exists (events sent before wait for it). */
  attach(stream: SseStream): void {
    this.stream = stream
    if (this.ended) stream.abort()
    else void this.pump()
  }

  private async pump() {
    if (this.writing || !this.stream) return
    this.writing = true
    try {
      while (this.queue.length && !this.ended) {
        const chunk = this.queue[0]
        await this.stream.write(chunk)
        if (this.ended) break
        this.queue.shift()
        this.bytes -= Buffer.byteLength(chunk)
      }
    } finally {
      this.writing = false
    }
    if (!this.queue.length) this.wake('drain')
  }

  /** Resolves when everything queued so far is written, or the stream closed. */
  drained(): Promise<void> {
    if (this.ended || !this.queue.length) return Promise.resolve()
    return new Promise((r) => this.drainWaiters.push(r))
  }

  /** Resolves when the stream closes, or after ms. */
  sleep(ms: number): Promise<void> {
    if (this.ended) return Promise.resolve()
    return new Promise((r) => {
      const waiter = () => {
        clearTimeout(t)
        this.closeWaiters = this.closeWaiters.filter((w) => w !== waiter)
        r()
      }
      const t = setTimeout(waiter, ms)
      this.closeWaiters.push(waiter)
    })
  }

  private wake(what: 'drain' | 'close') {
    const w = what === 'drain' ? this.drainWaiters : [...this.drainWaiters, ...this.closeWaiters]
    this.drainWaiters = []
    if (what === 'close') this.closeWaiters = []
    for (const f of w) f()
  }

  /** Ends the stream: whatever waits is dropped, a write in progress is cancelled. */
  close(why: 'slow' | 'closed' = 'closed'): void {
    if (this.ended) return
    this.ended = true
    this.queue = []
    this.bytes = 0
    // cancels the response body: a write waiting on the reader fails, the connection ends
    this.stream?.abort()
    this.wake('close')
    this.onClose(why)
  }
}
