"""The web UI: server-rendered Jinja2 pages with plain forms and a little vanilla JS."""
