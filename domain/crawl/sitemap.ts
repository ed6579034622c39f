/** sitemap.xml and sitemap indexes, read with an XML parser: page URLs and nested sitemaps. */
import { DOMParser } from "linkedom";

export interface SitemapEntries {
  pages: string[];
  sitemaps: string[];
}

export function parseSitemap(xml: string): SitemapEntries {
  const out: SitemapEntries = { pages: [], sitemaps: [] };
  let doc;
  try {
    doc = new DOMParser().parseFromString(xml, "text/xml");
  } catch {
    return out;
  }
  const root = doc.documentElement?.tagName?.toLowerCase().replace(/^.*:/, "") ?? "";
  const locs = [...doc.getElementsByTagName("loc")].map((el) => (el.textContent ?? "").trim())
    .filter(Boolean);
  if (root === "sitemapindex") out.sitemaps = locs;
  else if (root === "urlset") out.pages = locs;
  return out;
}
