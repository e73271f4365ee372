// Hands the person a file made in the page (an export's reply): a Blob behind an <a download> that is
// clicked once, then let go.
/**
 * @param {string} name the file's name
 * @param {string} text its content
 * @param {string} type its media type
 */
export function saveFile(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
