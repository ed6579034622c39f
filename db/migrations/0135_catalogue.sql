-- The product catalogue of a workspace, synced from its linked storefront
-- (domain/catalogue). Indexed like knowledge (knowledge_tsv: the name with
-- weight A, then the description and attributes), so the same full-text
-- machinery searches it; pgvector adds an embedding column (db/migrate.ts).
-- Prices in the currency's minor units. Unlinking the storefront deletes the rows.
CREATE TABLE catalogue_products (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  -- The storefront's id (a Shopify GID), the `id` recommendations carry.
  product_id text NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  price_minor bigint NOT NULL,
  currency text NOT NULL,
  url text NOT NULL,
  buy_url text NOT NULL,
  image_url text,
  in_stock boolean NOT NULL,
  tsv tsvector NOT NULL,
  -- The embedding model of the `embedding` column, when products are embedded.
  embedding_model text,
  synced_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, product_id)
);
CREATE INDEX catalogue_products_tsv_idx ON catalogue_products USING gin (tsv)
  WITH (gin_pending_list_limit = 256);

-- The last sync of each workspace's catalogue: what the portal shows.
CREATE TABLE catalogue_syncs (
  workspace_id bigint PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('pending', 'syncing', 'ready', 'failed')),
  products integer NOT NULL DEFAULT 0,
  synced_at timestamptz,
  last_error text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Products shown with an AI reply (one row each: an impression) and the
-- first click on each (clicked_at): the portal analytics count both per month.
CREATE TABLE product_recommendations (
  id bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  chatbot_id bigint NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  message_id bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  product_id text NOT NULL,
  position smallint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  clicked_at timestamptz,
  UNIQUE (message_id, product_id)
);
CREATE INDEX product_recommendations_month_idx
  ON product_recommendations (workspace_id, created_at);
CREATE INDEX product_recommendations_clicks_idx
  ON product_recommendations (workspace_id, clicked_at) WHERE clicked_at IS NOT NULL;
CREATE INDEX product_recommendations_conversation_idx
  ON product_recommendations (conversation_id, product_id);
