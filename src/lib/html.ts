/** Text made safe to place in HTML, between tags or inside a quoted attribute: mail and the server's pages both write HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
