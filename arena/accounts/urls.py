"""Account URLs under /api/auth/."""

from django.urls import path

from arena.accounts import views

urlpatterns = [
    path("auth/register/", views.RegisterView.as_view(), name="auth-register"),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("auth/tokens/", views.TokenListView.as_view(), name="auth-tokens"),
    path("auth/tokens/<str:prefix>/", views.TokenRevokeView.as_view(), name="auth-token-revoke"),
    path("auth/password/", views.PasswordChangeView.as_view(), name="auth-password"),
    path("auth/me/", views.MeView.as_view(), name="auth-me"),
]
