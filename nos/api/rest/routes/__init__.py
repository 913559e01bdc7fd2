"""The REST API's routers, one module per resource family; each exposes ``router(ctx) -> APIRouter``."""
