/**
 * One pass of `work` at a time, and never a change missed: a call while a pass runs asks for
 * one more pass after it (the change it was made for may have come after the running pass
 * read its rows) and shares the running pass's promise. `after` runs once the passes stop
 * (the outboxes re-arm their alarm there, so what still failed is tried again later).
 */
export class SingleFlight {
  #running: Promise<void> | null = null;
  #again = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly after: () => void,
  ) {}

  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.work();
      } while (this.#again);
    })().finally(() => {
      this.#running = null;
      this.after();
    });
    return this.#running;
  }
}
