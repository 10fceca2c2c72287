"""A small web page over the API."""
