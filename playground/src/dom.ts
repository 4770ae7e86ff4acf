// A tiny element builder: h("div", { class: "seat" }, child, "text").

export type Child = Node | string | number | false | null | undefined | Child[];

export interface Attributes {
  [name: string]: string | number | boolean | undefined | ((event: Event) => void);
}

/** An element with attributes (on* names take listeners; false and undefined are left out). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "function") {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (value === true) {
      element.setAttribute(name, "");
    } else if (value !== false && value !== undefined) {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (Array.isArray(child)) {
      append(parent, child);
    } else if (child instanceof Node) {
      parent.appendChild(child);
    } else if (child !== false && child !== null && child !== undefined) {
      parent.appendChild(document.createTextNode(String(child)));
    }
  }
}

/** Replace the children of an element. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
