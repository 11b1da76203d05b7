# posenc explorer: the Streamlit app on port 8501.
#   docker build -t posenc .
#   docker run --rm -p 8501:8501 posenc      # then open http://localhost:8501
# Python 3.12, as Streamlit Community Cloud: requirements.txt then takes the CPU build of torch.
FROM python:3.12-slim

# No .pyc files, logs straight to `docker logs`. The code in the image never changes,
# so Streamlit need not watch its files (the watchers cost CPU in every session).
# MALLOC_ARENA_MAX=2: every Streamlit session runs its script in a thread, and glibc gives
# threads their own malloc arenas; with two, the server's memory after 100 sessions at
# d_model=1024/length=4096 is ~245 MB instead of ~435 MB (BENCHMARKS.md).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STREAMLIT_SERVER_FILE_WATCHER_TYPE=none \
    MALLOC_ARENA_MAX=2

# The app runs as an unprivileged user (numeric id, so runAsNonRoot can check it);
# the code stays root-owned and read-only to that user.
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin streamlit

WORKDIR /app

# PyPI's Linux torch wheels are CUDA builds (several GB of nvidia-* wheels). On Linux with Python 3.12
# requirements.txt names PyTorch's CPU wheel by its URL (x86_64 and aarch64), so this plain install
# gets CPU torch and no nvidia-* package. Installed before the code is copied, so editing the app
# does not redo this layer.
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

# Only what `streamlit run app.py` and the asset server need (.dockerignore keeps the rest out).
COPY app.py .
COPY posenc/ posenc/
COPY pages/ pages/
COPY .streamlit/config.toml .streamlit/config.toml
# The asset server (deploy/compose.yaml, service "assets": this image, its own command).
COPY deploy/assets.py deploy/assets.py

USER 10001
EXPOSE 8501

# slim has no curl: ask the server's own health route with the standard library.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://localhost:8501/_stcore/health', timeout=4).status == 200 else 1)"]

CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]
