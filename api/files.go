package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"hub/files"
)

const codeUnsupportedType = "unsupported_type"

// multipartEnvelope is what a multipart body may carry besides the file: boundaries, part headers, small fields.
const multipartEnvelope = 64 << 10

type fileDTO struct {
	ID          string    `json:"id"`
	SpaceID     string    `json:"spaceId"`
	Name        string    `json:"name"`
	ContentType string    `json:"contentType"`
	Size        int64     `json:"size"`
	UploaderID  string    `json:"uploaderId"`
	CreatedAt   time.Time `json:"createdAt"`
	URL         string    `json:"url" doc:"Reads the file's bytes (GET …/content)."`
}

func toFileDTO(f files.File) fileDTO {
	return fileDTO{ID: f.ID, SpaceID: f.SpaceID, Name: f.Name, ContentType: f.ContentType, Size: f.Size,
		UploaderID: f.UploaderID, CreatedAt: f.CreatedAt,
		URL: "/api/spaces/" + url.PathEscape(f.SpaceID) + "/files/" + url.PathEscape(f.ID) + "/content"}
}

// fileError maps the file store's own errors to their answers; others (and nil) pass.
func (s *Server) fileError(err error) error {
	switch {
	case errors.Is(err, files.ErrTooLarge):
		err = newError(http.StatusRequestEntityTooLarge, codeTooLarge, "/file", err.Error())
	case errors.As(err, new(*http.MaxBytesError)):
		err = newError(http.StatusRequestEntityTooLarge, codeTooLarge, "/file", fmt.Sprintf("file too large: a file has at most %d bytes", s.Files.MaxBytes()))
	case errors.Is(err, files.ErrUnreadable):
		// The client's body ended early or broke: its fault, not Hub's.
		err = badRequest("/file", "the file could not be read to its end: the multipart body is cut short or broken; send it again")
	case errors.Is(err, files.ErrUnsupportedType):
		err = newError(http.StatusUnsupportedMediaType, codeUnsupportedType, "/file", err.Error())
	case errors.Is(err, files.ErrNoStore):
		err = unavailable("No file store is configured, so files cannot be attached. Set HUB_FILES_DIR or HUB_FILES_S3_ENDPOINT and HUB_FILES_S3_BUCKET and start Hub again.")
	case errors.Is(err, files.ErrNoBlob):
		err = newError(http.StatusNotFound, codeNotFound, "", "the file's contents are gone from the file store")
	}
	return err
}

// uploadFile takes one multipart part named "file". The body is bounded before it is read,
// and nothing is stored unless the whole file was read and passed the checks.
func (s *Server) uploadFile(c *gin.Context) (any, error) {
	limit := s.Files.MaxBytes() + multipartEnvelope
	if c.Request.ContentLength > limit {
		return nil, s.fileError(fmt.Errorf("%w: a file has at most %d bytes", files.ErrTooLarge, s.Files.MaxBytes()))
	}
	notMultipart := badRequest("/file", "send the file as multipart/form-data with a part named file")
	if mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, notMultipart
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, notMultipart
	}
	for {
		part, err := mr.NextPart()
		switch {
		case errors.Is(err, io.EOF):
			return nil, badRequest("/file", "the request has no part named file")
		case errors.As(err, new(*http.MaxBytesError)):
			return nil, s.fileError(err)
		case err != nil:
			return nil, badRequest("/file", "the multipart body could not be read")
		}
		if part.FormName() != "file" {
			_ = part.Close()
			continue
		}
		f, err := s.Files.Upload(c.Request.Context(), actor(c), c.Param("spaceId"), part.FileName(), part)
		_ = part.Close()
		return toFileDTO(f), s.fileError(err)
	}
}

type fileListDTO struct {
	Files []fileDTO `json:"files"`
}

func (s *Server) listFiles(c *gin.Context) (any, error) {
	fs, err := s.Files.List(c.Request.Context(), actor(c), c.Param("spaceId"))
	return fileListDTO{Files: toDTOs(fs, toFileDTO)}, s.fileError(err)
}

func (s *Server) getFile(c *gin.Context) (any, error) {
	f, err := s.Files.Get(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"))
	return toFileDTO(f), s.fileError(err)
}

// fileContent sends a file's bytes, always an attachment with nosniff: a browser never runs it.
func (s *Server) fileContent(c *gin.Context) {
	f, rc, err := s.Files.Open(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"))
	if err != nil {
		respondError(c, s.fileError(err))
		return
	}
	defer rc.Close()
	h := c.Writer.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
	c.Status(http.StatusOK)
	_, _ = io.Copy(c.Writer, rc)
}

func (s *Server) deleteFile(c *gin.Context) (any, error) {
	return nil, s.fileError(s.Files.Delete(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id")))
}
