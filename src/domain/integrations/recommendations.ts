import type { AppContext } from '../../context';
import type { Branding } from '../chatbots/branding';
import { loadConnections, type ShopifyConnection } from './connections';
import { INTEGRATION_TIMEOUT_MS, IntegrationUnavailable } from './http';
import { rankProducts, type Matchable } from './productMatch';
import { listShopifyCatalogue, type ShopifyProduct, type ShopifyShop, type ShopifyVariant } from './shopify';

/** A product recommendation: the record the widget stream's `recommendations` event carries. */
export interface ProductRecommendation {
  id: number;
  name: string;
  price: string;
  currency: string;
  url: string;
  buy_url: string;
  image_url: string | null;
  description: string;
  in_stock: boolean;
}

interface CatalogueItem extends Matchable {
  recommendation: ProductRecommendation;
}

/**
 * Every visitor question may ask for recommendations; a minute's cache keeps that from spending the
 * store's API allowance (Shopify: 2 requests a second). Reconnecting the store starts afresh.
 */
const CACHE_MS = 60_000;
const MAX_CACHED_STORES = 500;
const catalogues = new Map<number, { version: string; expires: number; items: CatalogueItem[] }>();

const DESCRIPTION_CHARS = 200;

/**
 * Up to `limit` products of the workspace's Shopify store that match the visitor's question (keyword
 * overlap with title, tags and product type; src/domain/integrations/productMatch.ts). Empty when no
 * store is connected or nothing matches. Never throws: a failing store is logged and recommends nothing.
 */
export async function recommendProducts(ctx: AppContext, companyId: number, question: string, limit = 3): Promise<ProductRecommendation[]> {
  try {
    if (!question.trim() || limit <= 0) return [];
    const { shopify } = await loadConnections(companyId, ctx.secrets, ['shopify']);
    if (!shopify) return [];
    const items = await catalogueOf(ctx, companyId, shopify);
    return rankProducts(question, items, limit).map((item) => item.recommendation);
  } catch (error) {
    const detail = error instanceof IntegrationUnavailable ? { reason: error.reason, status: error.status } : { err: error };
    ctx.logger.warn({ companyId, service: 'shopify', ...detail }, 'product recommendations unavailable');
    return [];
  }
}

/**
 * A visitor asking for recommendations in so many words: "what do you recommend", "any
 * suggestions?", "can you suggest a ...", "which one should I buy", "what would you advise".
 */
const ASKS_FOR_RECOMMENDATIONS = [
  /\brecommend(?:s|ed|ing|ation|ations)?\b/i,
  /\bsuggest(?:ion|ions)?\b/i,
  /\b(?:which|what)\b[^.?!]*\bshould i (?:buy|get|choose|pick|order)\b/i,
  /\bwhat would you (?:advise|pick|choose)\b/i,
];

export const asksForRecommendations = (question: string): boolean => ASKS_FOR_RECOMMENDATIONS.some((pattern) => pattern.test(question));

/**
 * Whether a visitor question may bring product recommendations, by the chatbot's `recommend_mode`:
 * `off` never, `auto` always (products still have to match, from a connected store), `on_request`
 * only when the visitor asks for recommendations in so many words.
 */
export function recommendsFor(mode: Branding['recommend_mode'], question: string): boolean {
  if (mode === 'off') return false;
  return mode === 'auto' || asksForRecommendations(question);
}

async function catalogueOf(ctx: AppContext, companyId: number, shopify: ShopifyConnection): Promise<CatalogueItem[]> {
  const version = `${shopify.storeDomain}@${shopify.updatedAt.toISOString()}`;
  const cached = catalogues.get(companyId);
  if (cached && cached.version === version && cached.expires > Date.now()) return cached.items;

  const { shop, products } = await listShopifyCatalogue(ctx.config, shopify, AbortSignal.timeout(INTEGRATION_TIMEOUT_MS));
  const items = products.flatMap((product) => catalogueItem(product, shop));
  catalogues.delete(companyId);
  if (catalogues.size >= MAX_CACHED_STORES) catalogues.delete(catalogues.keys().next().value!);
  catalogues.set(companyId, { version, expires: Date.now() + CACHE_MS, items });
  return items;
}

/** Shopify's Admin API has no "available" flag: a variant sells when its stock is untracked, may oversell, or is above zero. */
const sells = (variant: ShopifyVariant) =>
  !variant.inventory_management || variant.inventory_policy === 'continue' || (variant.inventory_quantity ?? 0) > 0;

function catalogueItem(product: ShopifyProduct, shop: ShopifyShop): CatalogueItem[] {
  const variant = product.variants.find(sells) ?? product.variants[0];
  if (!variant) return [];
  const storefront = `https://${shop.storefrontDomain}`;
  const inStock = sells(variant);
  return [
    {
      title: product.title,
      tags: product.tags,
      productType: product.product_type,
      inStock,
      recommendation: {
        id: product.id,
        name: product.title,
        price: variant.price,
        currency: shop.currency,
        url: `${storefront}/products/${encodeURIComponent(product.handle)}`,
        // Shopify's cart permalink: one of this variant, straight to checkout.
        buy_url: `${storefront}/cart/${variant.id}:1`,
        image_url: product.image?.src ?? product.images?.[0]?.src ?? null,
        description: plainText(product.body_html ?? '', DESCRIPTION_CHARS),
        in_stock: inStock,
      },
    },
  ];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };

/** The product's HTML description as short plain text (the widget renders text, never HTML). */
function plainText(html: string, max: number): string {
  const text = html
    // An unclosed tag or script runs to the end (as in a browser); requiring the close made every "<" rescan the rest.
    .replace(/<(script|style)\b[^>]*(?:>[\s\S]*?(?:<\/\1>|$)|$)/gi, ' ')
    .replace(/<[^>]*(?:>|$)/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_match, name: string) => ENTITIES[name] ?? ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
