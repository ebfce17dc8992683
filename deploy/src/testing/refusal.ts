/** What an attempt the server should refuse came to: its error's message, or `allowed` when it went through. */
export async function refusalOf(attempt: () => Promise<unknown>): Promise<string> {
  try {
    await attempt();
    return 'allowed';
  } catch (error) {
    return error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
  }
}
